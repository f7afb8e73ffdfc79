import { describe, expect, it } from "vitest";
import { termFrequencies, tokenize } from "../text/tokenize";

describe("tokenize", () => {
  it("segments Chinese with jieba and drops Chinese stop words and punctuation", () => {
    const t = tokenize("发布审批规则是什么？");
    expect(t).toEqual(["发布", "审批", "规则"]);
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
});
