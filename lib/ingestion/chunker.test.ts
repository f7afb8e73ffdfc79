import { describe, expect, it } from "vitest";
import { chunkDocument, splitSentences } from "./chunker";
import type { Block, ParsedDocument } from "./types";

const para = (text: string, headingPath: string[], page: number | null = null): Block => ({ text, page, headingPath, kind: "paragraph" });
const heading = (text: string, headingPath: string[], level: number, page: number | null = null): Block => ({ text, page, headingPath, kind: "heading", level });

describe("splitSentences", () => {
  it("splits Chinese and English sentence ends and keeps every character", () => {
    const s = "第一句。第二句！第三句？第四句；English one. Two! Three? Pi is 3.14 here.";
    const parts = splitSentences(s);
    expect(parts.join("")).toBe(s);
    expect(parts).toEqual(["第一句。", "第二句！", "第三句？", "第四句；", "English one. ", "Two! ", "Three? ", "Pi is 3.14 here."]);
  });
  it("keeps closing quotes with their sentence", () => {
    expect(splitSentences("他说：“好的。”然后走了。")).toEqual(["他说：“好的。”", "然后走了。"]);
  });
});

describe("chunkDocument", () => {
  it("never crosses a heading and joins the heading path with ' / '", () => {
    const doc: ParsedDocument = {
      pageCount: 2,
      blocks: [
        heading("第二章", ["第二章"], 1, 1),
        heading("市场规模", ["第二章", "市场规模"], 2, 1),
        para("市场规模约为 386 亿元。", ["第二章", "市场规模"], 1),
        heading("海外市场", ["第二章", "海外市场"], 2, 2),
        para("海外收入占 8%。", ["第二章", "海外市场"], 2),
      ],
    };
    const chunks = chunkDocument(doc, { targetChars: 500, overlapChars: 50 });
    expect(chunks).toEqual([
      { ordinal: 0, content: "市场规模约为 386 亿元。", pageStart: 1, pageEnd: 1, headingPath: "第二章 / 市场规模" },
      { ordinal: 1, content: "海外收入占 8%。", pageStart: 2, pageEnd: 2, headingPath: "第二章 / 海外市场" },
    ]);
  });

  it("packs paragraphs up to the target and tracks the pages a chunk spans", () => {
    const p = (i: number, page: number) => para(`第${i}段`.padEnd(120, "文") + "。", ["章"], page);
    const doc: ParsedDocument = { pageCount: 3, blocks: [p(1, 1), p(2, 1), p(3, 2), p(4, 2), p(5, 3)] };
    const chunks = chunkDocument(doc, { targetChars: 300, overlapChars: 0 });
    expect(chunks.map((c) => [c.pageStart, c.pageEnd])).toEqual([[1, 1], [2, 2], [3, 3]]);
    expect(chunks[0]!.content.split("\n")).toHaveLength(2);
    const wide = chunkDocument(doc, { targetChars: 400, overlapChars: 0 });
    expect(wide.map((c) => [c.pageStart, c.pageEnd])).toEqual([[1, 2], [2, 3]]);
    // A chunk spanning pages records where each page begins in its content.
    const first = wide[0]!;
    expect(first.pageMarks).toEqual([[0, 1], [first.content.indexOf("第3段"), 2]]);
    expect(chunks[0]!.pageMarks).toBeUndefined();
  });

  it("splits a long Chinese paragraph at sentence ends with whole-sentence overlap", () => {
    const sentences = Array.from({ length: 30 }, (_, i) => `这是第${i + 1}个句子，用来测试按句子切分的效果。`);
    const doc: ParsedDocument = { pageCount: null, blocks: [para(sentences.join(""), ["测试"])] };
    const chunks = chunkDocument(doc, { targetChars: 200, overlapChars: 60 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.content.length).toBeLessThanOrEqual(200 + 60);
      expect(c.content.endsWith("。")).toBe(true);
      expect(c.headingPath).toBe("测试");
    }
    // Consecutive chunks share whole boundary sentence(s), at most the overlap.
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1]!.content;
      const next = splitSentences(chunks[i]!.content);
      let shared = "";
      for (const s of next) {
        if (!prev.endsWith(shared + s) && !prev.includes(shared + s)) break;
        shared += s;
      }
      expect(shared.length).toBeGreaterThan(0);
      expect(shared.length).toBeLessThanOrEqual(60);
      expect(prev.endsWith(shared)).toBe(true);
    }
    // Every sentence is somewhere.
    const all = chunks.map((c) => c.content).join("");
    for (const s of sentences) expect(all).toContain(s);
  });

  it("splits English at sentence ends and a sentence with no end at commas/spaces", () => {
    const long = Array.from({ length: 60 }, (_, i) => `clause number ${i}`).join(", ");
    const doc: ParsedDocument = { pageCount: null, blocks: [para(`Short one. ${long}. Last sentence here.`, [])] };
    const chunks = chunkDocument(doc, { targetChars: 150, overlapChars: 0 });
    for (const c of chunks) expect(c.content.length).toBeLessThanOrEqual(150);
    expect(chunks.map((c) => c.content).join(" ").replace(/\s+/g, " ")).toContain("clause number 59");
    expect(chunks[0]!.headingPath).toBe("");
  });

  it("keeps code and table rows whole when splitting", () => {
    const rows = Array.from({ length: 40 }, (_, i) => `行${i} | 数值 ${i * 10} | 备注`).join("\n");
    const doc: ParsedDocument = { pageCount: null, blocks: [{ text: rows, page: null, headingPath: ["表"], kind: "table" }] };
    const chunks = chunkDocument(doc, { targetChars: 120, overlapChars: 0 });
    for (const c of chunks) for (const line of c.content.split("\n")) expect(line).toMatch(/^行\d+ \| 数值 \d+ \| 备注$/);
  });

  it("merges a tiny remainder into the previous chunk of its section", () => {
    const doc: ParsedDocument = {
      pageCount: null,
      blocks: [para("甲".repeat(180) + "。", ["s"]), para("乙".repeat(180) + "。", ["s"]), para("短。", ["s"])],
    };
    const chunks = chunkDocument(doc, { targetChars: 200, overlapChars: 0 });
    expect(chunks).toHaveLength(2);
    expect(chunks[1]!.content.endsWith("短。")).toBe(true);
  });

  it("ordinals are 0..n-1 in document order; a headings-only document still yields chunks", () => {
    const doc: ParsedDocument = { pageCount: null, blocks: [heading("只有标题", ["只有标题"], 1), heading("第二个", ["只有标题", "第二个"], 2)] };
    const chunks = chunkDocument(doc);
    expect(chunks.map((c) => [c.ordinal, c.content, c.headingPath])).toEqual([
      [0, "只有标题", "只有标题"],
      [1, "第二个", "只有标题 / 第二个"],
    ]);
  });

  it("never emits NUL, other control characters or lone surrogates", () => {
    const doc: ParsedDocument = { pageCount: 1, blocks: [para("前\u0000后\u0007 ok\ud800 end\u001f。", ["标题\u0000"], 1)] };
    const [c] = chunkDocument(doc);
    expect(c!.content).toBe("前后 ok end。");
    expect(c!.headingPath).toBe("标题");
  });
});
