import { describe, expect, it, vi } from "vitest";
import { termFrequencies, tokenize } from "../text/tokenize";

describe("tokenize", () => {
  it("segments Chinese with jieba and drops Chinese stop words and punctuation", () => {
    const t = tokenize("发布审批规则是什么？");
    expect(t).toEqual(["发布", "审批", "规则"]);
  });

  it("drops question words, including those jieba splits in two (有多大 → 有/多/大), so they never dilute a match", () => {
    expect(tokenize("智慧城市市场规模有多大？")).toEqual(["智慧", "城市", "市场", "规模"]);
    expect(tokenize("请问一下北京离上海多远？")).toEqual(["北京", "离", "上海"]);
    expect(tokenize("哪种方法最好？")).toEqual(["方法", "最好"]);
    expect(tokenize("同比增长多少？有没有数据")).toEqual(["同比", "增长", "数据"]);
    // The answer keeps its content words, so every query term above matches it.
    expect(tokenize("2023年智慧城市市场规模达到2.4万亿元")).toEqual(expect.arrayContaining(["智慧", "城市", "市场", "规模"]));
    // "大" is kept when it is not part of a question.
    expect(tokenize("大多数人")).toContain("大多数");
    expect(tokenize("What does the protein do? How many cells, how much energy?")).toEqual(["protein", "cell", "energi"]);
  });

  it("converts Traditional Chinese to Simplified before segmenting, so both match", () => {
    expect(tokenize("發布審批規則是什麼？")).toEqual(tokenize("发布审批规则是什么？"));
    expect(tokenize("資料庫的軟體")).toContain("资料库");
  });

  it("lowercases, removes English stop words and Porter-stems", () => {
    expect(tokenize("The runners were Running quickly")).toEqual(["runner", "run", "quickli"]);
    expect(tokenize("Alterations of the architecture")).toEqual(["alter", "architectur"]);
  });

  it("handles mixed Chinese/English text and keeps numbers (with decimals)", () => {
    const t = tokenize("2018年发布的Transformer模型，版本3.5 supports COVID-19");
    expect(t).toEqual(expect.arrayContaining(["2018", "年", "发布", "transform", "模型", "版本", "3.5", "support", "covid", "19"]));
    expect(t).not.toContain("的");
    expect(t.some((x) => /[，。,]/.test(x))).toBe(false);
  });

  it("search mode adds the dictionary words inside long words", () => {
    const t = tokenize("中华人民共和国");
    expect(t).toEqual(expect.arrayContaining(["中华人民共和国", "人民", "共和国"]));
  });

  it("folds full-width characters and never throws on odd input", () => {
    expect(tokenize("ＡＢＣ１２３")).toEqual(["abc123"]);
    expect(tokenize("")).toEqual([]);
    expect(tokenize("？！。，、")).toEqual([]);
    expect(() => tokenize("\u0000\uffff\ud800 x")).not.toThrow();
  });

  it("counts term frequencies", () => {
    expect([...termFrequencies(["a", "b", "a"])]).toEqual([
      ["a", 2],
      ["b", 1],
    ]);
  });

  it("builds the jieba dictionary once per process, however many instances of the module exist", async () => {
    // Next bundles the tokenizer into several chunks, each a module instance of its own; the
    // dictionary is kept on globalThis so that they share it.
    const g = globalThis as { __kaJieba?: object };
    const seen: Array<object | undefined> = [];
    for (let i = 0; i < 3; i++) {
      vi.resetModules();
      const fresh = await import("../text/tokenize");
      expect(fresh.tokenize("发布审批规则是什么？")).toEqual(["发布", "审批", "规则"]);
      seen.push(g.__kaJieba);
    }
    expect(seen[0]).toBeDefined();
    expect(new Set(seen).size).toBe(1);
  });
});
