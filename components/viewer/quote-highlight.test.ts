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

describe("whole words and characters", () => {
  it("extends a prefix match to the end of the word it stopped in, never inside a surrogate pair", () => {
    const page = "The keeper lights the lamp at dusk. The Rotholm lighthouse was built in 1872.";
    // The quote runs on past this page: only a prefix matches.
    const quote = "The Rotholm lighthouse was built in 1872. Visitors may climb the tower in summer and autumn, weather permitting.";
    const r = findQuoteRange(page, quote)!;
    expect(r.complete).toBe(false);
    expect(page.slice(r.start, r.end)).toMatch(/^The Rotholm lighthouse/);
    expect(page[r.end] ?? " ").not.toMatch(/[A-Za-z0-9]/);
    // A page ending inside the quoted sentence ("…lighthouse wa" before the fix).
    const cut = "…the keeper said. The Rotholm lighthouse was";
    const c = findQuoteRange(cut, "The Rotholm lighthouse was built in 1872 on the cliffs.")!;
    expect(cut.slice(c.start, c.end)).toBe("The Rotholm lighthouse was");
    const emoji = "状态 😀 正常";
    const e = findQuoteRange(emoji, "状态😀")!;
    expect(emoji.slice(e.start, e.end)).toBe("状态 😀");
  });
});

