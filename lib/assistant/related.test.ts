import { describe, expect, it } from "vitest";
import type { RetrievalHit } from "@/lib/retrieval/types";
import type { ContextBlock } from "./prompt";
import { candidatesFromHits, checkRelated, parseRelated, relatedFromReferences } from "./related";

const block = (index: number, fileName: string, headingPath: string): ContextBlock => ({
  index,
  hit: { id: `c${index}`, fileName, headingPath, content: "…" } as RetrievalHit,
  text: "…",
});

describe("related questions without a model", () => {
  it("asks about the references' own headings (the deepest), else their file, once each", () => {
    const ctx = [
      block(1, "智慧城市政策.pdf", "第二章 / 实施范围"),
      block(2, "智慧城市政策.pdf", "第二章 / 实施范围"),
      block(3, "年度报告.docx", ""),
    ];
    expect(relatedFromReferences("政策的实施范围？", ctx)).toEqual(["「实施范围」还有哪些要点？", "「年度报告」还有哪些要点？"]);
  });

  it("answers in the question's language and stops at the maximum", () => {
    const ctx = [block(1, "a.md", "Backups"), block(2, "b.md", "Restore"), block(3, "c.md", "Retention"), block(4, "d.md", "Audit")];
    expect(relatedFromReferences("How do I back up?", ctx)).toEqual([
      'What else does "Backups" cover?',
      'What else does "Restore" cover?',
      'What else does "Retention" cover?',
    ]);
  });

  it("holds nothing but the references' names: no reference, no question", () => {
    expect(relatedFromReferences("任何问题", [])).toEqual([]);
  });
});

describe("related questions from a model", () => {
  it("takes one question per line without list markers, drops fragments, keeps three", () => {
    const text = "1. 实施范围包括哪些城市？\n- 何时开始实施？\n\n好\n• 资金如何申请？\n2) 还有哪些配套政策？";
    expect(parseRelated(text)).toEqual(["实施范围包括哪些城市？", "何时开始实施？", "资金如何申请？"]);
  });
});

describe("related questions the knowledge base can answer", () => {
  const hit = (id: string, content: string, headingPath = "") => ({ id, chunkId: id, fileName: "faq.md", headingPath, content }) as RetrievalHit;

  it("proposes the KB's own questions first (FAQ lines), then its headings, never the question itself", () => {
    const hits = [hit("a", "问：购买后多少天内可以申请全额退款？\n答：14 天内。"), hit("b", "问：退款多久到账？\n答：5 个工作日内。", "常见问题 / 退款")];
    const ctx = hits.map((h, i) => ({ index: i + 1, hit: h, text: h.content }));
    expect(candidatesFromHits("购买后多少天内可以申请全额退款？", hits, ctx)).toEqual(["退款多久到账？", "「faq」还有哪些要点？", "「退款」还有哪些要点？"]);
  });

  it("keeps only candidates retrieval answers with a passage the answer has not used, at most three", async () => {
    const answers: Record<string, RetrievalHit[]> = {
      "退款多久到账？": [hit("b", "")],
      "量子引力是什么？": [],
      "购买后多少天可以退款？": [hit("a", "")],
      "退款到账后有通知吗？": [hit("b", "")],
      "发票怎么开？": [hit("c", "")],
    };
    const asked: string[] = [];
    const kept = await checkRelated(Object.keys(answers), new Set(["a"]), async (q) => {
      asked.push(q);
      return { hits: answers[q]! };
    });
    // No hit: dropped; best passage already cited: dropped; same best passage as a kept one: once.
    expect(kept).toEqual(["退款多久到账？", "发票怎么开？"]);
    expect(asked).toHaveLength(5);
    expect(await checkRelated(["x1", "x2", "x3", "x4"], new Set(), async (q) => ({ hits: [hit(q, "")] }))).toEqual(["x1", "x2", "x3"]);
  });
});
