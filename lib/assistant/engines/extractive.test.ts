import { describe, expect, it, vi } from "vitest";
import type { RetrievalHit } from "@/lib/retrieval/types";
import type { ContextBlock } from "../prompt";

// Counts the tokenizer's calls while keeping its real behaviour.
vi.mock("@/lib/retrieval/text/tokenize", async (importOriginal) => {
  const real = await importOriginal<typeof import("@/lib/retrieval/text/tokenize")>();
  return { ...real, tokenize: vi.fn(real.tokenize) };
});

const { tokenize } = await import("@/lib/retrieval/text/tokenize");
const { selectSentences, composeExtractiveAnswer, extractAnswer } = await import("./extractive");

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
    expect(en).toBe("Back up the workspace every night. [2]");
  });

  it("keeps a sentence wrapped at a line end whole (soft line breaks in a stored chunk)", () => {
    const wrapped = block(
      7,
      "Administrators invite members from **Admin console → Members → Invite**. An invitation link is\nvalid for 7 days and can be used once. Members who have not accepted after 7 days must be invited\nagain; the old link then stops working.",
    );
    const kept = selectSentences("How long is an invitation link valid?", [wrapped]);
    expect(kept[0]?.text).toBe("An invitation link is valid for 7 days and can be used once.");
    expect(kept.every((s) => !/^valid/.test(s.text))).toBe(true);
  });

  it("keeps only the sentences that earn their place against the question, best first, at most three", () => {
    const handbook = [
      block(1, "私有化部署的最低配置为 4 核 CPU、16 GB 内存和 200 GB 固态硬盘，推荐配置为 8 核 CPU、32 GB 内存。操作系统支持 Ubuntu 22.04 和 Debian 12。"),
      block(2, "海外市场的主要竞争对手是国际协同办公厂商。云笺的差异化优势在于中文支持以及更灵活的私有化部署方案。", 0.7),
      block(3, "安装完成后，建议立即配置每日自动备份。集群部署时，应用节点是无状态的，可以按需水平扩展。", 0.6),
    ];
    const zh = selectSentences("私有化部署的最低硬件配置是什么？", handbook);
    expect(zh.map((s) => s.text)).toEqual(["私有化部署的最低配置为 4 核 CPU、16 GB 内存和 200 GB 固态硬盘，推荐配置为 8 核 CPU、32 GB 内存。"]);

    const zephyr = [
      block(1, "Project Zephyr launches on 3 March. The Zephyr budget is 2.4 million euros for the first year. Questions about Zephyr go to zephyr@example.com."),
    ];
    const en = selectSentences("What is the Zephyr budget?", zephyr);
    expect(en.map((s) => s.text)).toEqual(["The Zephyr budget is 2.4 million euros for the first year."]);

    const many = [block(1, Array.from({ length: 6 }, (_, i) => `Backups of the workspace run every night, copy ${i + 1}.`).join(" "))];
    expect(selectSentences("When do workspace backups run?", many).length).toBeLessThanOrEqual(3);
  });

  it("answers an FAQ entry with its answer, not with the question it repeats; a table row stays a row", () => {
    const faq = [block(1, "问：忘记登录密码怎么办？答：在登录页点击“忘记密码”，系统会向注册邮箱发送重置链接。问：可以导出聊天记录吗？答：管理员可以导出。")];
    expect(selectSentences("忘记登录密码怎么办？", faq)[0]?.text).toBe("答：在登录页点击“忘记密码”，系统会向注册邮箱发送重置链接。");
    const table = [block(2, "产品线 | 第一季度 | 第二季度 | 环比\n企业版订阅 | 8,960 | 9,870 | +10.2%")];
    expect(selectSentences("企业版订阅第二季度收入", table).map((s) => s.text)).toContain("企业版订阅 | 8,960 | 9,870 | +10.2%");
  });

  it("a reference whose table row is quoted quotes the whole table", () => {
    const ctx = [block(1, "各产品线的季度收入如下表所示。\n产品线 | 第一季度 | 第二季度\n标准版订阅 | 12,480 | 13,020\n企业版订阅 | 8,960 | 9,870")];
    const { quotes } = extractAnswer("各产品线第二季度的收入是多少？", ctx);
    expect(quotes.get(1)).toContain("产品线 | 第一季度 | 第二季度\n标准版订阅 | 12,480 | 13,020\n企业版订阅 | 8,960 | 9,870");
  });

  it("counts a long question word once, not once per word jieba finds inside it", () => {
    const ctx = [
      block(1, "第二季度新增付费企业客户 3,150 家。本报告汇总 2025 年第二季度的客户数据。"),
      block(2, "季度客户满意度调查共回收问卷 2,306 份，综合满意度 4.6 分。", 0.6),
    ];
    expect(selectSentences("第二季度的客户满意度是多少？", ctx)[0]?.text).toBe("季度客户满意度调查共回收问卷 2,306 份，综合满意度 4.6 分。");
  });

  it("lists several kept sentences best first and says nothing about being extractive (the UI does, once)", () => {
    const ctx = [
      block(1, "Audit logs are kept for 180 days in the standard plan. Deleted files stay in the recycle bin for 30 days."),
      block(2, "In the enterprise plan audit logs are kept for 2 years.", 0.7),
    ];
    const answer = composeExtractiveAnswer("How long are audit logs kept in each plan?", ctx);
    expect(answer.split("\n")).toEqual(["- Audit logs are kept for 180 days in the standard plan. [1]", "- In the enterprise plan audit logs are kept for 2 years. [2]"]);
    expect(answer).not.toMatch(/extractive|抽取式|摘自/i);
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
