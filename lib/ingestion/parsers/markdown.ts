import { joinMarkdownLines, joinSoft } from "@/lib/retrieval/text/soft-breaks";
import type { ParseBudget, ParsedDocument } from "../types";
import { BlockSink } from "./common";
import { decodeUtf8 } from "./text";

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT_1 = /^ {0,3}=+[ \t]*$/;
const SETEXT_2 = /^ {0,3}-+[ \t]*$/;
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+/;
const TABLE_ROW = /^ {0,3}\|/;
const THEMATIC = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;

/**
 * Markdown: ATX (`## x`) and setext (`x\n===`) headings build the heading path; fenced code is
 * kept verbatim (with its fences) as a code block; lists and pipe tables stay together.
 * Inline markup is kept as written (it is what a person sees in the source). Line breaks inside
 * a paragraph or a list item are soft (CommonMark): the lines are joined, so a sentence wrapped
 * at 100 columns stays one sentence in chunks, quotes and highlights.
 */
export function parseMarkdown(data: Uint8Array, budget: ParseBudget): ParsedDocument {
  const lines = decodeUtf8(data).replace(/\r\n?/g, "\n").split("\n");
  const sink = new BlockSink();
  let i = 0;
  // YAML front matter at the very top is metadata, not content.
  if (lines[0]?.trim() === "---") {
    const end = lines.findIndex((l, k) => k > 0 && (l.trim() === "---" || l.trim() === "..."));
    if (end > 0 && end < 200) i = end + 1;
  }
  let para: string[] = [];
  let kind: "paragraph" | "list" | "table" = "paragraph";
  const flush = () => {
    // Paragraph lines are raw (a hard break needs their trailing spaces); list items and table
    // rows were joined or trimmed as they came.
    if (para.length) sink.add(kind, kind === "paragraph" ? joinMarkdownLines(para) : para.join("\n"));
    para = [];
    kind = "paragraph";
  };
  for (; i < lines.length; i++) {
    if (i % 5000 === 0) budget.check();
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const marker = fence[1]!;
      const code = [line];
      let j = i + 1;
      for (; j < lines.length; j++) {
        code.push(lines[j]!);
        const close = new RegExp(`^ {0,3}${marker[0] === "`" ? "`" : "~"}{${marker.length},}[ \\t]*$`);
        if (close.test(lines[j]!)) break;
      }
      sink.add("code", code.join("\n"), null, true);
      i = j;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      flush();
      sink.heading(atx[1]!.length, atx[2] ?? "");
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    // Setext: a paragraph of one or more lines underlined with === or ---.
    const next = lines[i + 1];
    if (next !== undefined && kind === "paragraph" && !LIST_ITEM.test(line) && !TABLE_ROW.test(line)) {
      if (SETEXT_1.test(next) || (SETEXT_2.test(next) && (para.length > 0 || line.trim()))) {
        const text = [...para, line].map((l) => l.trim()).join(" ");
        para = [];
        sink.heading(SETEXT_1.test(next) ? 1 : 2, text);
        i++;
        continue;
      }
    }
    if (THEMATIC.test(line)) {
      flush();
      continue;
    }
    const isItem = LIST_ITEM.test(line);
    const isRow = TABLE_ROW.test(line);
    if (isRow) {
      if (kind !== "table") flush();
      kind = "table";
      // The |---|---| delimiter row carries no content.
      if (/^\s*\|?[\s:|-]+\|?\s*$/.test(line) && line.includes("-")) continue;
      para.push(line.trim());
      continue;
    }
    if (isItem) {
      if (kind !== "list") flush();
      kind = "list";
      para.push(line.trim());
      continue;
    }
    if (kind === "table") flush();
    // A continuation line of a list item (indented or lazy) belongs to that item.
    if (kind === "list" && para.length) {
      para[para.length - 1] = joinSoft(para[para.length - 1]!, line.trim());
      continue;
    }
    para.push(line);
  }
  flush();
  return { pageCount: null, blocks: sink.blocks };
}
