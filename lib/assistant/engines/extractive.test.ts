import { describe, expect, it, vi } from "vitest";
import type { RetrievalHit } from "@/lib/retrieval/types";
import type { ContextBlock } from "../prompt";

// Counts the tokenizer's calls while keeping its real behaviour.
vi.mock("@/lib/retrieval/text/tokenize", async (importOriginal) => {
  const real = await importOriginal<typeof import("@/lib/retrieval/text/tokenize")>();
  return { ...real, tokenize: vi.fn(real.tokenize) };
});

const { tokenize } = await import("@/lib/retrieval/text/tokenize");
const { selectSentences, composeExtractiveAnswer } = await import("./extractive");

function block(index: number, content: string, score = 0.8): ContextBlock {
  const hit = { id: `c${index}`, chunkId: `c${index}`, content, score } as RetrievalHit;
  return { index, hit, text: content };
}

const context = [
  block(1, "私有化部署的最低配置为 8 核 CPU、32 GB 内存。部署前请确认网络策略。"),
  block(2, "Back up the workspace every night. Restores take about ten minutes.", 0.6),
];

describe("extractive engine", () => {
  it("picks the sentences that answer the question, keeping their reference numbers", () => {
    const zh = selectSentences("私有化部署的最低配置是什么？", context);
    expect(zh[0]).toMatchObject({ index: 1, text: "私有化部署的最低配置为 8 核 CPU、32 GB 内存。" });
    const en = composeExtractiveAnswer("How do I back up the workspace?", context);
    expect(en).toContain("- Back up the workspace every night. [2]");
  });

  it("tokenizes a reference's sentences once, however many questions it answers", () => {
    const fresh = [block(3, "设备 X120 的维护周期为每季度一次。维护记录保存三年。"), block(4, "Quarterly maintenance covers the X120 pump.")];
    vi.mocked(tokenize).mockClear();
    const first = selectSentences("设备 X120 的维护周期", fresh);
    // The question, then each of the three sentences.
    expect(vi.mocked(tokenize)).toHaveBeenCalledTimes(4);
    vi.mocked(tokenize).mockClear();
    const again = selectSentences("设备 X120 的维护周期", fresh);
    const other = selectSentences("维护记录保存多久？", fresh);
    // Only the two questions: the sentences come from the cache, with the same result.
    expect(vi.mocked(tokenize)).toHaveBeenCalledTimes(2);
    expect(again).toEqual(first);
    expect([...other].sort((a, b) => b.score - a.score)[0]?.text).toBe("维护记录保存三年。");
  });

  it("shares its cache with every instance of the module (Next bundles it more than once)", async () => {
    const ctx = [block(6, "备份每天凌晨执行。恢复需要十分钟。")];
    selectSentences("备份什么时候执行", ctx);
    vi.resetModules();
    const freshTokenizer = await import("@/lib/retrieval/text/tokenize");
    const fresh = await import("./extractive");
    vi.mocked(freshTokenizer.tokenize).mockClear();
    fresh.selectSentences("备份什么时候执行", ctx);
    // Only the question: the other instance already tokenized the sentences.
    expect(vi.mocked(freshTokenizer.tokenize)).toHaveBeenCalledTimes(1);
  });

  it("treats an edited reference as new text", () => {
    const before = selectSentences("维护周期", [block(5, "维护周期为每月一次。")]);
    const after = selectSentences("维护周期", [block(5, "维护周期为每年一次。")]);
    expect(before[0]?.text).toBe("维护周期为每月一次。");
    expect(after[0]?.text).toBe("维护周期为每年一次。");
  });
});
