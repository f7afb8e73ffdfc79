import { describe, expect, it } from "vitest";
import { retrieve, type ExternalSource } from "../core";
import type { KnowledgeProvider } from "../providers/protocol";
import type { RetrievalContext } from "../types";

function ctx(readable: string[] = [], signal = new AbortController().signal): RetrievalContext {
  return { ownerId: "owner-1", sessionId: "s", turnId: "t", traceId: "trace", signal, readableKnowledgeIds: new Set(readable) };
}

function source(key: string, retrieve: KnowledgeProvider["retrieve"], scores = true): ExternalSource {
  const description = { protocolVersion: 1 as const, key, label: key, capabilities: { filters: false, scores, citations: true } };
  return { provider: { describe: () => description, retrieve }, description };
}

const ok = source("wiki", async () => ({
  results: [
    { id: "a", content: "Release needs two approvers.", score: 0.9, source: { title: "Handbook", uri: "https://docs.example.com/rel" } },
    { id: "b", content: "Second", score: 0.4, source: { uri: "http://10.0.0.1/x" } },
  ],
}));
const empty = source("empty-one", async () => []);
const slow = source(
  "slow",
  () =>
    new Promise((resolve) => {
      setTimeout(() => resolve([{ id: "late", content: "late" }]), 5000).unref();
    }),
);
const throwing = source("boom", async () => {
  throw new Error("provider exploded");
});
const malformed = source("garbage", async () => ({ items: "nope" }));

describe("retrieve() with external providers", () => {
  it("isolates each provider: ok, empty, timeout, error and malformed change only their own status", async () => {
    const t0 = Date.now();
    const res = await retrieve({ query: "release approvers", topK: 5, knowledgeBaseIds: [] }, ctx(), {
      externalProviders: [ok, empty, slow, throwing, malformed],
      timeoutMs: 150,
    });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(res.sources).toEqual([
      { source_type: "knowledge-base", status: "unavailable", count: 0 },
      { source_type: "wiki", status: "ok", count: 2 },
      { source_type: "empty-one", status: "empty", count: 0 },
      { source_type: "slow", status: "timeout", count: 0 },
      { source_type: "boom", status: "error", count: 0 },
      { source_type: "garbage", status: "error", count: 0 },
    ]);
    expect(res.hits.map((h) => h.id)).toEqual(["wiki:a", "wiki:b"]);
    expect(res.hits[0]).toMatchObject({ sourceType: "wiki", sourceUri: "https://docs.example.com/rel", sourceName: "Handbook", untrusted: true, score: 0.9 });
    expect(res.hits[1]!.sourceUri).toBeNull(); // private address dropped
    expect(res.diagnostics.sourceErrors.boom).toContain("provider exploded");
    expect(res.diagnostics.sourceErrors.garbage).toContain("malformed");
  });

  it("passes the slow provider an aborted signal when its timeout fires", async () => {
    let seen: AbortSignal | undefined;
    const spy = source("spy", (_r, c) => {
      seen = c.signal;
      return new Promise(() => {});
    });
    const res = await retrieve({ query: "q", topK: 3, knowledgeBaseIds: [] }, ctx(), { externalProviders: [spy], timeoutMs: 50 });
    expect(res.sources[1]!.status).toBe("timeout");
    expect(seen?.aborted).toBe(true);
  });

  it("sends only the standard request; identity comes from the server context; topK ≤ 8", async () => {
    let got: unknown;
    let gotCtx: { ownerId: string } | undefined;
    const spy = source("spy", async (r, c) => {
      got = r;
      gotCtx = c;
      return [];
    });
    await retrieve({ query: "  hello  ", topK: 20, knowledgeBaseIds: [] }, ctx(), { externalProviders: [{ ...spy, knowledgeBaseIds: ["ext-1"] }] });
    expect(got).toEqual({ query: "hello", topK: 8, knowledgeBaseIds: ["ext-1"], filters: {} });
    expect(gotCtx!.ownerId).toBe("owner-1");
  });

  it("applies min_score to external hits and sorts merged hits by score", async () => {
    const a = source("a", async () => [{ id: "1", content: "x", score: 0.3 }, { id: "2", content: "y", score: 0.8 }]);
    const b = source("b", async () => [{ id: "1", content: "z", score: 0.6 }]);
    const res = await retrieve({ query: "q", topK: 5, knowledgeBaseIds: [] }, ctx(), { externalProviders: [a, b], minScore: 0.5 });
    expect(res.hits.map((h) => [h.id, h.score])).toEqual([
      ["a:2", 0.8],
      ["b:1", 0.6],
    ]);
  });

  it("rejects an aborted caller and invalid requests", async () => {
    const ac = new AbortController();
    const p = retrieve({ query: "q", topK: 3, knowledgeBaseIds: [] }, ctx([], ac.signal), { externalProviders: [slow], timeoutMs: 10_000 });
    setTimeout(() => ac.abort(new Error("stop")), 20);
    await expect(p).rejects.toThrow("stop");
    await expect(retrieve({ query: "   ", topK: 3, knowledgeBaseIds: [] }, ctx())).rejects.toMatchObject({ code: "MESSAGE_EMPTY" });
    await expect(retrieve({ query: "q", topK: 0, knowledgeBaseIds: [] }, ctx())).rejects.toMatchObject({ code: "INVALID_PARAMS" });
    await expect(retrieve({ query: "q", topK: 3, knowledgeBaseIds: Array.from({ length: 9 }, (_, i) => `k${i}`) }, ctx())).rejects.toMatchObject({
      code: "INVALID_PARAMS",
    });
  });
});

describe("access filtering", () => {
  it("never passes an unreadable KB id to the database", async () => {
    const calls: unknown[][] = [];
    const fakeDb = {
      $queryRawUnsafe: async (_sql: string, ...params: unknown[]) => {
        calls.push(params);
        return [];
      },
    } as never;
    const res = await retrieve({ query: "cat", topK: 3, knowledgeBaseIds: ["mine", "theirs"] }, ctx(["mine", "other"]), { db: fakeDb });
    expect(res.diagnostics.deniedKnowledgeIds).toEqual(["theirs"]);
    expect(calls.length).toBeGreaterThan(0);
    for (const params of calls) {
      for (const p of params) if (Array.isArray(p) && p.some((x) => typeof x === "string" && ["mine", "theirs", "other"].includes(x))) expect(p).toEqual(["mine"]);
    }
    // Nothing readable requested → the database is not touched at all.
    calls.length = 0;
    const none = await retrieve({ query: "cat", topK: 3, knowledgeBaseIds: ["theirs"] }, ctx(["mine"]), { db: fakeDb });
    expect(calls).toEqual([]);
    expect(none.sources[0]!.status).toBe("unavailable");
  });
});
