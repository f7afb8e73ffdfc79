import { describe, expect, it } from "vitest";
import type { RetrievalHit } from "@/lib/retrieval/types";
import type { ContextBlock } from "./prompt";
import { parseRelated, relatedFromReferences } from "./related";

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
