import { describe, expect, it } from "vitest";
import { citedIndexes, MarkerFilter } from "./markers";

const run = (parts: string[], max = 3) => {
  const f = new MarkerFilter((n) => n >= 1 && n <= max);
  const out = parts.map((p) => f.push(p)).join("") + f.flush();
  return { out, removed: f.removed };
};

describe("MarkerFilter", () => {
  it("keeps valid markers and removes unknown ones", () => {
    expect(run(["答案[1]，另见[7]。"])).toEqual({ out: "答案[1]，另见。", removed: 1 });
  });
  it("handles markers split across deltas", () => {
    expect(run(["see [", "2", "] and [", "9]", " end"])).toEqual({ out: "see [2] and  end", removed: 1 });
  });
  it("splits grouped markers and filters each", () => {
    expect(run(["x [1, 2, 5] y"])).toEqual({ out: "x [1][2] y", removed: 1 });
  });
  it("leaves ordinary brackets alone", () => {
    expect(run(["array[i] and [note] and [", "a]"])).toEqual({ out: "array[i] and [note] and [a]", removed: 0 });
  });
  it("keeps a dangling bracket at the end as text", () => {
    expect(run(["tail [1"])).toEqual({ out: "tail [1", removed: 0 });
  });
  it("lists cited indexes in order", () => {
    expect(citedIndexes("a [2] b [1] c [2]")).toEqual([2, 1]);
  });
});
