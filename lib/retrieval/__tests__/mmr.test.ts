import { describe, expect, it } from "vitest";
import { cosine, jaccard, mmrSelect } from "../mmr";

const set = (s: string) => new Set(s.split(" "));

describe("MMR", () => {
  it("with λ=1 returns pure relevance order", () => {
    const items = [{ relevance: 0.2 }, { relevance: 0.9 }, { relevance: 0.5 }];
    expect(mmrSelect(items, 3, 1)).toEqual([1, 2, 0]);
  });

  it("skips a near-duplicate of the first pick in favour of a different passage", () => {
    const items = [
      { relevance: 0.9, tokens: set("release needs two approvers") },
      { relevance: 0.88, tokens: set("release needs two approvers") }, // duplicate
      { relevance: 0.7, tokens: set("rollback requires on-call sign off") },
    ];
    expect(mmrSelect(items, 2, 0.7)).toEqual([0, 2]);
    // Relevance-only would have kept the duplicate.
    expect(mmrSelect(items, 2, 1)).toEqual([0, 1]);
  });

  it("uses vectors when both items have one", () => {
    const items = [
      { relevance: 1, vector: [1, 0] },
      { relevance: 0.95, vector: [0.99, 0.01] },
      { relevance: 0.8, vector: [0, 1] },
    ];
    expect(mmrSelect(items, 2, 0.6)).toEqual([0, 2]);
  });

  it("similarity helpers", () => {
    expect(jaccard(set("a b"), set("b c"))).toBeCloseTo(1 / 3);
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([1, 1], [2, 2])).toBeCloseTo(1);
    expect(mmrSelect([], 3)).toEqual([]);
  });
});
