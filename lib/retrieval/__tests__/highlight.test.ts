import { describe, expect, it } from "vitest";
import { matchedRanges } from "../text/highlight";
import { tokenize } from "../text/tokenize";

const mark = (text: string, query: string) => matchedRanges(text, new Set(tokenize(query))).map(([a, b]) => text.slice(a, b));

describe("matchedRanges", () => {
  it("marks English words through stemming and numbers exactly", () => {
    expect(mark("Shipment 123405 was dispatched from the Rotterdam warehouse.", "Which warehouse did shipment 123405 leave?")).toEqual(["Shipment", "123405", "warehouse"]);
    expect(mark("Two shipments were held.", "shipment")).toEqual(["shipments"]);
  });

  it("marks Chinese terms, Traditional text included, and merges overlaps", () => {
    expect(mark("发布需要两位审核人批准。", "发布流程需要谁批准")).toEqual(["发布需要", "批准"]);
    expect(mark("發布需要兩位審核人批准。", "发布")).toEqual(["發布"]);
  });

  it("marks nothing without terms", () => {
    expect(matchedRanges("anything", new Set())).toEqual([]);
  });
});
