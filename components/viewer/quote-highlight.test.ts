import { describe, expect, it } from "vitest";
import { findQuoteRange, splitByRange } from "./quote-highlight";

describe("findQuoteRange", () => {
  it("finds a quote across line breaks and spaces", () => {
    const text = "第二章\n2023 年智慧城市市场规模达到 2.4 万亿元，\n同比增长 15.3%。";
    const r = findQuoteRange(text, "智慧城市市场规模达到2.4万亿元，同比增长");
    expect(r).not.toBeNull();
    expect(text.slice(r!.start, r!.end).replace(/\s/g, "")).toBe("智慧城市市场规模达到2.4万亿元，同比增长");
  });
  it("ignores a trailing ellipsis and falls back to a prefix", () => {
    const text = "条款一：供应商须具备三级资质。条款二：另行约定。";
    const r = findQuoteRange(text, "供应商须具备三级资质，并且提供近三年业绩证明…");
    expect(r).not.toBeNull();
    expect(text.slice(r!.start, r!.end)).toContain("供应商须具备");
  });
  it("returns null when nothing matches", () => {
    expect(findQuoteRange("完全无关的文本内容", "量子计算机散热方案")).toBeNull();
  });
  it("splits text around the range", () => {
    expect(splitByRange("abcdef", { start: 2, end: 4 })).toEqual([
      { text: "ab", mark: false },
      { text: "cd", mark: true },
      { text: "ef", mark: false },
    ]);
  });
});
