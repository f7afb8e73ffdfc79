import { describe, expect, it, vi } from "vitest";
import { chunkFeatures } from "./kb-search";
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
