import { describe, expect, it } from "vitest";
import {
  cosine, fakeEmbedding, fakeGroundedReply, parseCliArgs, tokenize,
} from "@/e2e/support/fake-openai-server";

describe("fake server's deterministic model", () => {
  it("embeddings are deterministic, unit length, and similar for similar texts", () => {
    const a = fakeEmbedding("员工年假政策的实施范围");
    expect(a).toEqual(fakeEmbedding("员工年假政策的实施范围"));
    expect(a).toHaveLength(64);
    expect(Math.hypot(...a)).toBeCloseTo(1, 10);
    const near = cosine(a, fakeEmbedding("年假政策实施范围是什么"));
    const far = cosine(a, fakeEmbedding("quarterly revenue forecast"));
    expect(near).toBeGreaterThan(0.5);
    expect(near).toBeGreaterThan(far + 0.3);
    expect(fakeEmbedding("", 8)).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
  });

  it("reply quotes reference [1] of the last user message and cites it", () => {
    const messages = [
      { role: "system", content: "Answer with markers like [n]." },
      { role: "user", content: "问题：年假几天？\n<references>\n[1] 员工手册.pdf · 第 3 页\n正式员工每年享有十五天带薪年假。\n[2] other\n</references>" },
    ];
    expect(fakeGroundedReply(messages)).toBe("根据参考资料，“正式员工每年享有十五天带薪年假。”[1]。");
    expect(fakeGroundedReply([{ role: "user", content: "[1] The policy applies to all full-time staff." }])).toBe(
      'According to the references, "The policy applies to all full-time staff." [1].',
    );
    expect(fakeGroundedReply([{ role: "user", content: "no references here" }])).toBe("当前知识库未检索到足够依据。");
  });

  it("tokenize splits CJK per character and words per token, losslessly", () => {
    const text = "根据资料 the policy [1]。";
    expect(tokenize(text).join("")).toBe(text);
    expect(tokenize("年假 two words")).toEqual(["年", "假", " two", " words"]);
  });

  it("parses CLI arguments", () => {
    expect(parseCliArgs(["--port", "4011", "--tokens-ms", "20", "--api-key", "k"])).toEqual({ port: 4011, tokenMs: 20, apiKey: "k" });
    expect(() => parseCliArgs(["--bogus"])).toThrow(/unknown/);
  });
});
