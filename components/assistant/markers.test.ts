import { describe, expect, it } from "vitest";
import { markerIndexes, splitMarkers } from "./markers";

describe("splitMarkers", () => {
  it("splits text and [n] markers in order", () => {
    expect(splitMarkers("规模 2.4 万亿 [1]，增长 [2][3]。")).toEqual([
      { type: "text", value: "规模 2.4 万亿 " },
      { type: "marker", index: 1, raw: "[1]" },
      { type: "text", value: "，增长 " },
      { type: "marker", index: 2, raw: "[2]" },
      { type: "marker", index: 3, raw: "[3]" },
      { type: "text", value: "。" },
    ]);
  });
  it("leaves years, [0] and unfinished markers as text", () => {
    expect(splitMarkers("[2024] [0] [1")).toEqual([{ type: "text", value: "[2024] [0] [1" }]);
  });
  it("returns no segments for empty text", () => {
    expect(splitMarkers("")).toEqual([]);
  });
  it("lists distinct indexes by first appearance", () => {
    expect(markerIndexes("a [2] b [1] c [2]")).toEqual([2, 1]);
  });
});
