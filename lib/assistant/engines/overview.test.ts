import { describe, expect, it } from "vitest";
import type { FileOutline } from "@/lib/retrieval/kb-overview";
import type { RetrievalHit } from "@/lib/retrieval/types";
import { composeOverview, isOverviewQuestion } from "./overview";

describe("overview questions", () => {
  it("recognises the welcome's overview question in both languages, not ordinary questions", () => {
    expect(isOverviewQuestion("这个知识库主要包含哪些内容？")).toBe(true);
    expect(isOverviewQuestion("What does this knowledge base mainly contain?")).toBe(true);
    expect(isOverviewQuestion("知识库里有哪些文件？")).toBe(true);
    expect(isOverviewQuestion("私有化部署的最低硬件配置是什么？")).toBe(false);
    expect(isOverviewQuestion("How long is an invitation link valid?")).toBe(false);
    expect(isOverviewQuestion("退款政策包含哪些条件？")).toBe(false);
  });

  it("lists each file with its top-level headings, citing its first passage", () => {
    const o = (fileName: string, headings: string[]): FileOutline => ({ hit: { fileName } as RetrievalHit, headings });
    expect(composeOverview([o("手册.pdf", ["第一章 产品概述", "第二章 部署"]), o("报告.docx", [])], true)).toBe(
      "这个知识库有 2 个可检索的文件：\n- **手册.pdf**：第一章 产品概述、第二章 部署 [1]\n- **报告.docx** [2]",
    );
    expect(composeOverview([o("guide.md", ["Members", "Security"])], false)).toBe("This knowledge base has 1 searchable file:\n- **guide.md**: Members; Security [1]");
  });
});
