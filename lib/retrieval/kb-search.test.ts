import { describe, expect, it, vi } from "vitest";
import { fuseScores } from "./calibrate";
import { chunkFeatures, rankAndCap, type RankableCandidate } from "./kb-search";
import type { LexicalChunk } from "./lexical";

function row(id: string, content: string, tokens: string): LexicalChunk {
  return { id, knowledge_id: "kb", file_id: "f", file_name: "a.md", page_start: null, page_end: null, heading_path: "", content, tokens };
}

describe("chunk features", () => {
  it("splits a chunk's tokens and folds its whitespace once, however often the chunk comes back", () => {
    const first = chunkFeatures(row("c1", "Back up  the\nworkspace ", "back up workspac"));
    expect([...first.tokenSet]).toEqual(["back", "up", "workspac"]);
    expect(first.contentKey).toBe("Back up the workspace");
    // Each query's rows are new objects with equal strings: the cached features are reused.
    expect(chunkFeatures(row("c1", "Back up  the\nworkspace ", "back up workspac"))).toBe(first);
  });

  it("never serves the features of an older text under the same id", () => {
    const before = chunkFeatures(row("c2", "维护周期 每月", "维护 周期 每月"));
    const after = chunkFeatures(row("c2", "维护周期 每年", "维护 周期 每年"));
    expect(after).not.toBe(before);
    expect(after.contentKey).toBe("维护周期 每年");
    expect(after.tokenSet.has("每年")).toBe(true);
    expect(after.tokenSet.has("每月")).toBe(false);
  });

  it("is one cache per process, shared by every instance of the module (Next bundles it more than once)", async () => {
    const first = chunkFeatures(row("c3", "每周备份一次", "每周 备份 一次"));
    vi.resetModules();
    const fresh = await import("./kb-search");
    expect(fresh.chunkFeatures(row("c3", "每周备份一次", "每周 备份 一次"))).toBe(first);
  });
});

describe("the answerability cap and the order of hits (rankAndCap)", () => {
  type Item = { c: RankableCandidate; tokens: ReadonlySet<string> };
  const item = (chunkId: string, lex: number | null, tokens: string, vec: number | null = null): Item => ({
    c: { chunkId, lex, lexRaw: lex ?? 0, vec, vecRaw: vec ?? -2, rerank: null, score: fuseScores(lex, vec) },
    tokens: new Set(tokens.split(" ")),
  });
  const rank = (pool: Item[], cap: number | null) => rankAndCap(pool, { topK: 2, lambda: 0.85, cap });
  const ids = (r: ReturnType<typeof rank>) => r.hits.map((h) => h.item.c.chunkId);

  it("one query's hits come in the same order with the cap on as with it off (answerabilityTau null); only the scores differ", () => {
    // b repeats a; c is another passage, much less relevant. Uncapped, MMR keeps b (its relevance
    // outweighs the redundancy). A cap of 0.3 applied before MMR made all three score 0.3 and MMR
    // then swapped b for c — the Recall@5 loss measured on SciFact.
    const pool = [item("a", 0.95, "back up the workspace weekly"), item("b", 0.9, "back up the workspace weekly"), item("c", 0.6, "rotate the keys")];
    const off = rank(pool, null);
    const on = rank(pool, 0.3);
    expect(ids(off)).toEqual(["a", "b"]);
    expect(ids(on)).toEqual(ids(off));
    expect(off.hits.map((h) => h.score)).toEqual([0.95, 0.9]);
    for (const h of on.hits) expect(h.score).toBeCloseTo(0.3, 12);
    expect(on.hits.map((h) => [h.relevanceRank, h.mmrPosition])).toEqual(off.hits.map((h) => [h.relevanceRank, h.mmrPosition]));
    expect(on.hits.map((h) => h.lexical)).toEqual([0.3, 0.3]);
    expect(on.ceiling).toBeCloseTo(0.3, 12);
  });

  it("vector evidence lifts the query's ceiling, never reorders: reported scores stay in relevance order", () => {
    // Uncapped relevance: v 0.93 (vector-strong) > l 0.9 (lexical only) > w. The ceiling is the best
    // score any hit reaches with its lexical part capped (v: 1 − 0.7·0.1), one number per query.
    const pool = [item("l", 0.9, "alpha beta"), item("v", 0.3, "gamma delta", 0.9), item("w", 0.2, "epsilon zeta", 0.5)];
    const off = rank(pool, null);
    const on = rank(pool, 0.3);
    expect(ids(on)).toEqual(ids(off));
    const scores = on.hits.map((h) => h.score);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
    expect(on.ceiling).toBeCloseTo(fuseScores(0.3, 0.9), 12);
    for (const h of on.hits) expect(h.score).toBeLessThanOrEqual(h.item.c.score);
  });

  it("MMR weighs relevance as evidence: a strong passage sharing words with the first is kept over a weak one", async () => {
    // a and b are both strong (calibrated 0.995 / 0.99: saturated) and share most words (a
    // section's title, Jaccard 0.57); c covers the question far less (0.92). On the calibrated
    // scale b and a were "equally relevant" and the redundancy decided: MMR took c. On the
    // evidence scale −ln(1 − s) b is 0.87 of a, c 0.48: b stays.
    const pool = [item("a", 0.995, "acme r7 router guide port eight"), item("b", 0.99, "acme r7 router guide mount"), item("c", 0.92, "zen switch port")];
    expect(ids(rank(pool, null))).toEqual(["a", "b"]);
    // Candidates equally strong still make way for a different passage when they repeat each other.
    const dup = [item("a", 0.99, "back up the workspace weekly"), item("b", 0.985, "back up the workspace weekly"), item("c", 0.98, "rotate the keys")];
    expect(ids(rank(dup, null))).toEqual(["a", "c"]);
  });
});
