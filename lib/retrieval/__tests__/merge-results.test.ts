import { describe, expect, it } from "vitest";
import type { RetrievalResultWithDiagnostics } from "../core";
import { mergeResults } from "../runtime";
import type { RetrievalHit } from "../types";

const hit = (id: string, score: number, sourceType = "knowledge-base"): RetrievalHit => ({
  id, chunkId: id, fileId: "f", fileName: "f.md", knowledgeId: "kb", pageStart: null, pageEnd: null, headingPath: "", content: id, score,
  sourceType, sourceId: "f", sourceUri: null, sourceName: "f.md", untrusted: true,
});
const result = (hits: RetrievalHit[], status: "ok" | "empty" = hits.length ? "ok" : "empty"): RetrievalResultWithDiagnostics => ({
  hits,
  sources: [{ source_type: "knowledge-base", status, count: hits.length }],
  diagnostics: { deniedKnowledgeIds: [], sourceErrors: {}, tookMs: 1 },
});

describe("mergeResults (original question + its translations)", () => {
  it("keeps each hit once with its best score, best first, top_k kept, counts updated", () => {
    const merged = mergeResults(result([hit("a", 0.3), hit("b", 0.2)]), [result([hit("c", 0.9), hit("a", 0.8)])], 2);
    expect(merged.hits.map((h) => [h.id, h.score])).toEqual([["c", 0.9], ["a", 0.8]]);
    expect(merged.sources).toEqual([{ source_type: "knowledge-base", status: "ok", count: 2 }]);
  });

  it("turns an empty original into ok when a translation found something", () => {
    const merged = mergeResults(result([]), [result([hit("x", 0.7)])], 8);
    expect(merged.sources[0]).toMatchObject({ status: "ok", count: 1 });
  });
});
