import { readFileSync } from "node:fs";
import path from "node:path";
import mammoth from "mammoth";
import { describe, expect, it, vi } from "vitest";
import { hostileDocx } from "../../e2e/integration/ingestion/support/hostile-uploads";
import { inspectDocxArchive, parseDocx, DOCX_LIMITS, WordTextCounter } from "./parsers/docx";
import { parseHtml } from "./parsers/html";
import { parseMarkdown } from "./parsers/markdown";
import { parsePdf } from "./parsers/pdf";
import { parseText } from "./parsers/text";
import { IngestionFailure, makeBudget, type ParsedDocument } from "./types";

const FIX = path.resolve(import.meta.dirname, "../../e2e/fixtures");
const fx = (n: string) => readFileSync(path.join(FIX, n));
const budget = (over: Partial<{ maxPages: number; timeoutMs: number }> = {}) => makeBudget({ maxPages: 2000, timeoutMs: 60_000, ...over });
const find = (doc: ParsedDocument, needle: string) => doc.blocks.find((b) => b.text.includes(needle));

async function failure(p: Promise<unknown> | (() => unknown)): Promise<IngestionFailure> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    expect(e).toBeInstanceOf(IngestionFailure);
    return e as IngestionFailure;
  }
  throw new Error("expected a failure");
}

describe("PDF (unpdf)", () => {
  it("extracts text per page with page numbers and font-size headings", async () => {
    const doc = await parsePdf(fx("zh-handbook.pdf"), budget());
    expect(doc.pageCount).toBe(7);
    expect(find(doc, "386 亿元")).toMatchObject({ page: 3, kind: "paragraph", headingPath: ["第二章 市场规模", "2.1 国内市场"] });
    expect(find(doc, "忘记登录密码")).toMatchObject({ page: 6, headingPath: ["第四章 常见问题"] });
    expect(find(doc, "400-820-1234")).toMatchObject({ page: 7, headingPath: ["第五章 服务与支持", "5.2 联系方式"] });
    // The cover title heads the cover text only.
    expect(find(doc, "本手册面向")?.headingPath).toEqual(["云笺协同办公平台 产品手册"]);
    const headings = doc.blocks.filter((b) => b.kind === "heading").map((b) => b.text);
    expect(headings).toContain("3.3 数据迁移");
    // Lines wrapped by the layout are joined back into one paragraph, without spaces between CJK.
    expect(find(doc, "私有化部署的最低配置为 4 核 CPU、16 GB 内存和 200 GB 固态硬盘，推荐配置为")).toBeTruthy();
    // Running footers ("云笺产品手册 · 第 N 页") are not content.
    expect(doc.blocks.some((b) => b.text.includes("云笺产品手册 · 第"))).toBe(false);
  });

  it("scanned PDF fails with 'scanned PDF / no text layer'", async () => {
    const e = await failure(parsePdf(fx("scanned.pdf"), budget()));
    expect(e.message).toMatch(/^scanned PDF \/ no text layer/);
    expect(e.code).toBe("FILE_TYPE_UNSUPPORTED");
  });

  it("encrypted PDF fails with a clear reason", async () => {
    expect((await failure(parsePdf(fx("encrypted.pdf"), budget()))).message).toMatch(/encrypted \(password-protected\)/);
  });

  it("truncated PDF fails as damaged", async () => {
    expect((await failure(parsePdf(fx("truncated.pdf"), budget()))).message).toMatch(/damaged or incomplete/);
  });

  it("enforces the page budget before reading pages", async () => {
    const e = await failure(parsePdf(fx("zh-handbook.pdf"), budget({ maxPages: 3 })));
    expect(e.code).toBe("FILE_TOO_LARGE");
    expect(e.message).toMatch(/7 pages; the limit is 3/);
  });

  it("enforces the time budget", async () => {
    const e = await failure(parsePdf(fx("zh-handbook.pdf"), budget({ timeoutMs: -1 })));
    expect(e.message).toMatch(/time budget/);
  });
});

describe("PDF running headers and footers", () => {
  it("drops a footer repeated on every page of a three-page PDF", async () => {
    const { PDFDocument, StandardFonts } = await import("pdf-lib");
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    const body = ["The keeper lights the lamp at dusk.", "The Rotholm lighthouse was built in 1872.", "Visitors may climb the tower in summer."];
    body.forEach((text, i) => {
      const page = pdf.addPage([400, 300]);
      page.drawText(text, { x: 40, y: 200, size: 12, font });
      page.drawText(`Lighthouse manual page ${i + 1}/3`, { x: 40, y: 30, size: 9, font });
    });
    const doc = await parsePdf(await pdf.save(), budget());
    const text = doc.blocks.map((b) => b.text).join("\n");
    expect(text).not.toMatch(/Lighthouse manual/);
    expect(find(doc, "Rotholm")).toMatchObject({ page: 2, text: "The Rotholm lighthouse was built in 1872." });
  }, 30_000);
});

describe("DOCX (yauzl checks + mammoth)", () => {
  it("keeps headings, lists and tables", async () => {
    const doc = await parseDocx({ path: path.join(FIX, "report.docx") }, budget());
    expect(doc.pageCount).toBeNull();
    expect(find(doc, "企业版订阅 | 8,960 | 9,870 | +10.2%")).toMatchObject({ kind: "table", headingPath: ["2025 年第二季度运营报告", "二、分产品收入"] });
    expect(find(doc, "- 知识库检索结果希望显示页码")).toMatchObject({ kind: "list", headingPath: ["2025 年第二季度运营报告", "三、服务质量", "3.2 客户满意度"] });
    expect(doc.blocks.filter((b) => b.kind === "heading").map((b) => [b.level, b.text])).toEqual([
      [1, "2025 年第二季度运营报告"],
      [2, "一、经营概况"],
      [2, "二、分产品收入"],
      [2, "三、服务质量"],
      [3, "3.1 响应时效"],
      [3, "3.2 客户满意度"],
      [2, "四、下季度计划"],
    ]);
  });

  it("rejects a bomb whose entry declares a huge size, without inflating it", async () => {
    const before = process.memoryUsage().rss;
    const e = await failure(parseDocx({ path: path.join(FIX, "bomb.docx") }, budget()));
    expect(e.code).toBe("FILE_TOO_LARGE");
    expect(e.message).toMatch(/zip bomb.*compression ratio/);
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  });

  it("rejects a bomb whose declared size lies, stopping the inflate early", async () => {
    const before = process.memoryUsage().rss;
    const e = await failure(parseDocx({ buffer: fx("bomb-lying-size.docx") }, budget()));
    expect(e.message).toMatch(/zip bomb.*does not match its declared size/);
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  });

  it("caps the actually inflated bytes even when the sizes are honest", async () => {
    // The honest bomb with the ratio check relaxed: the byte budget stops it.
    const e = await failure(parseDocx({ path: path.join(FIX, "bomb.docx") }, budget(), { ...DOCX_LIMITS, maxRatio: 1e9, maxInflatedBytes: 8 * 1024 * 1024 }));
    expect(e.message).toMatch(/inflate to more than 8 MB/);
  });

  it("rejects too many entries", async () => {
    const e = await failure(parseDocx({ path: path.join(FIX, "report.docx") }, budget(), { ...DOCX_LIMITS, maxEntries: 3 }));
    expect(e.message).toMatch(/entries \(limit 3\)/);
  });

  it("counts the document's text while its XML inflates, as mammoth extracts it", async () => {
    const { textChars } = await inspectDocxArchive({ path: path.join(FIX, "report.docx") }, budget());
    const doc = await parseDocx({ path: path.join(FIX, "report.docx") }, budget());
    const parsed = doc.blocks.reduce((n, b) => n + b.text.length, 0);
    // Never above what the parser extracts, so the early check refuses no file the final check
    // (on the parsed blocks) would accept; the parsed text is a little longer because table
    // cells and list items get separators.
    expect(textChars).toBeLessThanOrEqual(parsed);
    expect(textChars).toBeGreaterThan(parsed * 0.9);
  });

  it("counts only the characters inside <w:t> elements, however the XML is split into chunks", () => {
    const xml =
      '<w:p><w:r><w:t xml:space="preserve">A &amp; 中</w:t></w:r>' +
      // An empty w:t whose "/" lies beyond the bytes the counter keeps of a tag, then markup
      // whitespace: nothing of it is text.
      '<w:r><w:t xml:space="preserve"/></w:r>\n    <w:r><w:tab/><w:t/></w:r>\n  ' +
      "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>bc</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:p>";
    const whole = new WordTextCounter();
    whole.push(Buffer.from(xml));
    // "A & 中" is 5 characters (an entity counts once, a CJK character once), "bc" 2.
    expect(whole.chars).toBe(7);
    const split = new WordTextCounter();
    for (const b of Buffer.from(xml)) split.push(Buffer.from([b]));
    expect(split.chars).toBe(7);
  });

  it("refuses a DOCX over the extracted-text limit while its XML inflates, before mammoth runs", async () => {
    // The DOCX in small: valid archive, honest sizes, ~3:1 ratio; 2 MB of XML with about
    // 1 million characters of text, against a limit lowered to 200,000 characters.
    const docx = hostileDocx({ xmlBytes: 2 * 1024 * 1024 });
    const convert = vi.spyOn(mammoth, "convertToHtml");
    try {
      const e = await failure(parseDocx({ buffer: docx }, makeBudget({ maxPages: 2000, timeoutMs: 60_000, limits: { maxTextChars: 200_000 } })));
      expect(e.code).toBe("FILE_TOO_LARGE");
      expect(e.message).toMatch(/contains more than 0\.2 million characters of text; the limit is 0\.2 million characters per file\. Split it/);
      expect(convert).not.toHaveBeenCalled();
      // Within the limit the same file is parsed.
      const doc = await parseDocx({ buffer: docx }, budget());
      expect(doc.blocks.filter((b) => b.kind === "heading").length).toBeGreaterThan(50);
    } finally {
      convert.mockRestore();
    }
    // mammoth parses 2 MB of XML in the second half: seconds on a busy 2-core machine.
  }, 60_000);

  it("a damaged zip fails as damaged", async () => {
    const buf = fx("report.docx").subarray(0, 2000);
    expect((await failure(parseDocx({ buffer: Buffer.from(buf) }, budget()))).message).toMatch(/damaged/);
  });
});

describe("Markdown", () => {
  it("ATX and setext headings, fenced code kept, tables and lists grouped", () => {
    const doc = parseMarkdown(fx("guide.md"), budget());
    expect(find(doc, "refund period")?.headingPath).toEqual(["Knowledge Assistant Guide", "Asking questions"]);
    expect(find(doc, "| PDF | yes | from font size |")).toMatchObject({ kind: "table", headingPath: ["Knowledge Assistant Guide", "Uploading documents", "Supported formats"] });
    expect(find(doc, "Several files can be uploaded")?.kind).toBe("list");
    const code = find(doc, "pdftotext report.pdf");
    expect(code?.kind).toBe("code");
    expect(code?.text).toBe("```bash\n# Check whether a PDF has a text layer\npdftotext report.pdf - | head\n```");
    // The "#" inside the fence is not a heading; front matter is not content.
    expect(doc.blocks.some((b) => b.kind === "heading" && b.text.includes("Check whether"))).toBe(false);
    expect(doc.blocks.some((b) => b.text.includes("title: Knowledge"))).toBe(false);
  });

  it("heading levels: a deeper heading after a skipped level, then a shallower one", () => {
    const md = "# A\n\n### C\n\ntext c\n\n## B\n\ntext b\n";
    const doc = parseMarkdown(Buffer.from(md), budget());
    expect(find(doc, "text c")?.headingPath).toEqual(["A", "C"]);
    expect(find(doc, "text b")?.headingPath).toEqual(["A", "B"]);
  });

  it("joins a paragraph's and a list item's wrapped lines (soft breaks); a hard break stays", () => {
    const md = [
      "Administrators invite members from **Admin console → Members → Invite**. An invitation link is",
      "valid for 7 days and can be used once.",
      "",
      "- **Session length**: members are signed out after 12 hours of inactivity by default (1 to 72",
      "  hours).",
      "- **External sharing**: off by default.",
      "",
      "第一行中文内容比较长，按固定宽度在这里",
      "换行之后继续。",
      "",
      "Line one  ",
      "line two",
    ].join("\n");
    const doc = parseMarkdown(Buffer.from(md), budget());
    expect(doc.blocks.map((b) => b.text)).toEqual([
      "Administrators invite members from **Admin console → Members → Invite**. An invitation link is valid for 7 days and can be used once.",
      "- **Session length**: members are signed out after 12 hours of inactivity by default (1 to 72 hours).\n- **External sharing**: off by default.",
      "第一行中文内容比较长，按固定宽度在这里换行之后继续。",
      "Line one\nline two",
    ]);
  });
});

describe("HTML (htmlparser2)", () => {
  it("drops script/style/noscript/template and keeps headings, lists, tables", () => {
    const doc = parseHtml(fx("privacy.html"), budget());
    const text = doc.blocks.map((b) => b.text).join("\n");
    expect(text).not.toMatch(/alert|cookie|console|font-family|请启用|模板内容|云笺 隐私政策/);
    expect(find(doc, "15 个工作日")?.headingPath).toEqual(["隐私政策", "二、信息的保存期限"]);
    expect(find(doc, "- 账号信息：姓名、邮箱、手机号")?.kind).toBe("list");
    expect(find(doc, "隐私问题 | privacy@yunjian.example")?.kind).toBe("table");
  });

  it("block boundaries make paragraphs; entities are decoded; <pre> is verbatim", () => {
    const html = "<div>one &amp; two<br>three</div><p>four</p><pre>  a\n    b</pre><script>x()</script>";
    const doc = parseHtml(Buffer.from(html), budget());
    expect(doc.blocks.map((b) => [b.kind, b.text])).toEqual([
      ["paragraph", "one & two\nthree"],
      ["paragraph", "four"],
      ["code", "  a\n    b"],
    ]);
  });
});

describe("plain text", () => {
  it("paragraphs by blank lines", () => {
    const doc = parseText(fx("notes.txt"), budget());
    expect(doc.pageCount).toBeNull();
    expect(find(doc, "扫描版 PDF 没有文字层")?.kind).toBe("paragraph");
    expect(doc.blocks.length).toBeGreaterThan(4);
  });

  it("form feeds are pages; the page budget applies", () => {
    const doc = parseText(Buffer.from("第一页内容\f第二页内容\n\n第二页第二段\f"), budget());
    expect(doc.pageCount).toBe(2);
    expect(find(doc, "第二页第二段")?.page).toBe(2);
    const huge = Buffer.from(Array.from({ length: 10_000 }, (_, i) => `Page ${i + 1} text.`).join("\f"));
    expect(() => parseText(huge, budget())).toThrow(/10,000 pages.*limit is 2,000/);
  });

  it("joins lines wrapped at a fixed width; short lines and list items keep their breaks", () => {
    const txt = [
      "The backup tool copies the database and the file storage together so that they always",
      "match. Daily backups are kept for 14 days by default; weekly backups for 8 weeks.",
      "",
      "Contact:",
      "Support desk",
      "support@example.com",
      "",
      "Steps to restore a backup from the command line of the server, in this order:",
      "1. stop the application",
      "2. run restore.sh",
    ].join("\n");
    const doc = parseText(Buffer.from(txt), budget());
    expect(doc.blocks.map((b) => b.text)).toEqual([
      "The backup tool copies the database and the file storage together so that they always match. Daily backups are kept for 14 days by default; weekly backups for 8 weeks.",
      "Contact:\nSupport desk\nsupport@example.com",
      "Steps to restore a backup from the command line of the server, in this order:\n1. stop the application\n2. run restore.sh",
    ]);
  });
});
