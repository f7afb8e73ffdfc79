import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJobSnapshot } from "@/lib/ingestion/progress";
import { fixture, openTestEnv, type TestEnv } from "./helpers";
import { POSTING_ROWS_SQL } from "@/lib/retrieval/index-writer";

describe("ingestion of the real fixtures", () => {
  let t: TestEnv;
  let kb: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await openTestEnv();
    kb = await t.newKb();
    const res = await t.upload(kb, [
      { name: "zh-handbook.pdf", data: fixture("zh-handbook.pdf") },
      { name: "report.docx", data: fixture("report.docx") },
      { name: "guide.md", data: fixture("guide.md") },
      { name: "privacy.html", data: fixture("privacy.html") },
      { name: "notes.txt", data: fixture("notes.txt") },
    ]);
    for (const f of res.files) {
      expect(f.ok, f.ok ? "" : `${f.name}: ${f.code} ${f.message}`).toBe(true);
      if (f.ok) ids[f.file.name] = f.file.id;
    }
    await t.runJobs();
  });
  afterAll(async () => t?.close());

  it("every file ends in success with truthful statuses", async () => {
    const files = await t.db.knowledgeFile.findMany({ where: { knowledgeId: kb } });
    expect(files).toHaveLength(5);
    for (const f of files) {
      expect(f.status, `${f.name}: ${f.errorMessage}`).toBe("success");
      expect(f.embeddingStatus).toBe("skipped");
      expect(f.chunkCount).toBeGreaterThan(0);
      expect(await t.db.chunk.count({ where: { fileId: f.id } })).toBe(f.chunkCount);
      const snap = await getJobSnapshot(t.db, f.id);
      expect(snap?.terminal).toBe(true);
      expect(snap?.event).toMatchObject({ type: "done", status: "success", chunk_count: f.chunkCount });
    }
    const pdf = files.find((f) => f.name === "zh-handbook.pdf")!;
    expect(pdf.pageCount).toBe(7);
    expect(pdf.fileType).toBe("pdf");
  });

  it("keeps page numbers and heading paths of specific passages (PDF)", async () => {
    const c = await t.db.chunk.findFirst({ where: { fileId: ids["zh-handbook.pdf"], content: { contains: "386 亿元" } } });
    expect(c).toMatchObject({ pageStart: 3, pageEnd: 3, headingPath: "第二章 市场规模 / 2.1 国内市场" });
    const faq = await t.db.chunk.findFirst({ where: { fileId: ids["zh-handbook.pdf"], content: { contains: "忘记登录密码" } } });
    expect(faq).toMatchObject({ pageStart: 6, headingPath: "第四章 常见问题" });
    const span = await t.db.chunk.findFirst({ where: { fileId: ids["zh-handbook.pdf"], headingPath: "第三章 部署与安装 / 3.3 数据迁移" }, orderBy: { ordinal: "desc" } });
    expect(span?.pageEnd).toBe(5);
    // Running header/footer lines are not content.
    expect(await t.db.chunk.count({ where: { fileId: ids["zh-handbook.pdf"], content: { contains: "云笺产品手册 · 第" } } })).toBe(0);
  });

  it("keeps DOCX headings and tables", async () => {
    const table = await t.db.chunk.findFirst({ where: { fileId: ids["report.docx"], content: { contains: "企业版订阅 | 8,960 | 9,870 | +10.2%" } } });
    expect(table).toMatchObject({ headingPath: "2025 年第二季度运营报告 / 二、分产品收入", pageStart: null });
    const sat = await t.db.chunk.findFirst({ where: { fileId: ids["report.docx"], content: { contains: "知识库检索结果希望显示页码" } } });
    expect(sat?.headingPath).toBe("2025 年第二季度运营报告 / 三、服务质量 / 3.2 客户满意度");
  });

  it("Markdown heading paths (ATX and setext) and code fences", async () => {
    const q = await t.db.chunk.findFirst({ where: { fileId: ids["guide.md"], content: { contains: "refund period" } } });
    expect(q?.headingPath).toBe("Knowledge Assistant Guide / Asking questions");
    const code = await t.db.chunk.findFirst({ where: { fileId: ids["guide.md"], content: { contains: "pdftotext report.pdf" } } });
    expect(code?.content).toContain("```bash");
    expect(code?.headingPath).toBe("Knowledge Assistant Guide / Troubleshooting");
  });

  it("HTML drops scripts, styles, noscript and template", async () => {
    const all = await t.db.chunk.findMany({ where: { fileId: ids["privacy.html"] } });
    const text = all.map((c) => c.content).join("\n");
    expect(text).not.toMatch(/alert|document\.cookie|console\.log|font-family|请启用|模板内容/);
    const keep = all.find((c) => c.content.includes("15 个工作日"));
    expect(keep?.headingPath).toBe("隐私政策 / 二、信息的保存期限");
  });

  it("writes lexical index terms for every chunk", async () => {
    const chunks = await t.db.chunk.count({ where: { knowledgeId: kb } });
    const withTerms = await t.db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(DISTINCT chunk_id)::int AS n FROM ${POSTING_ROWS_SQL} t WHERE knowledge_id = $1`, kb);
    expect(withTerms[0]!.n).toBe(chunks);
  });
});
