import { Parser } from "htmlparser2";
import type { ParseBudget, ParsedDocument } from "../types";
import { BlockSink } from "./common";
import { decodeUtf8 } from "./text";

// Content of these elements is never text a reader sees (or is active content): dropped.
const SKIP = new Set(["script", "style", "noscript", "template", "title", "nav", "svg", "math", "iframe", "object", "embed", "canvas", "select", "button"]);
const BLOCK = new Set([
  "p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "blockquote", "figure",
  "figcaption", "address", "details", "summary", "dl", "dt", "dd", "form", "fieldset", "legend", "hr",
  "caption", "center", "body", "html",
]);
const HEADING = /^h([1-6])$/;

/**
 * HTML (also the output of mammoth for DOCX): scripts, styles and other non-text elements are
 * dropped; h1–h6 build the heading path; block boundaries make paragraphs; list items become
 * "- item" lines of one list block; table rows become "cell | cell" lines of one table block;
 * <pre> is kept verbatim as code.
 */
export function parseHtmlString(html: string, budget: ParseBudget): ParsedDocument {
  const sink = new BlockSink();
  let skipDepth = 0;
  let buf = "";
  let heading = 0;
  let pre = 0;
  const lists: Array<{ ordered: boolean; n: number }> = [];
  let items: string[] = [];
  let tableDepth = 0;
  let rows: string[] = [];
  let cells: string[] = [];
  let inCell = false;
  let events = 0;

  const take = () => {
    const t = buf;
    buf = "";
    return t;
  };
  const flushPara = () => {
    const t = take();
    if (tableDepth > 0 && inCell) {
      buf = t; // inside a cell, block tags only separate words
      return;
    }
    if (lists.length > 0) {
      if (t.trim()) items.push(`${listMarker()} ${t.trim()}`);
      return;
    }
    sink.add("paragraph", t);
  };
  const listMarker = () => {
    const l = lists[lists.length - 1];
    const indent = "  ".repeat(Math.max(0, lists.length - 1));
    return l?.ordered ? `${indent}${l.n}.` : `${indent}-`;
  };

  const parser = new Parser(
    {
      onopentag(name) {
        if (++events % 2000 === 0) budget.check();
        if (SKIP.has(name)) {
          skipDepth++;
          return;
        }
        if (skipDepth) return;
        const h = HEADING.exec(name);
        if (h && tableDepth === 0 && lists.length === 0) {
          flushPara();
          heading = Number(h[1]);
          return;
        }
        switch (name) {
          case "br":
            buf += "\n";
            return;
          case "pre":
            if (tableDepth === 0 && lists.length === 0) flushPara();
            pre++;
            return;
          case "ul":
          case "ol":
            if (lists.length === 0) flushPara();
            else if (buf.trim()) items.push(`${listMarker()} ${take().trim()}`);
            lists.push({ ordered: name === "ol", n: 0 });
            return;
          case "li": {
            const l = lists[lists.length - 1];
            if (buf.trim() && lists.length) items.push(`${listMarker()} ${take().trim()}`);
            buf = "";
            if (l) l.n++;
            return;
          }
          case "table":
            if (tableDepth === 0) {
              if (lists.length === 0) flushPara();
              rows = [];
            }
            tableDepth++;
            return;
          case "tr":
            cells = [];
            return;
          case "td":
          case "th":
            inCell = true;
            buf = "";
            return;
        }
        if (BLOCK.has(name)) {
          if (inCell || heading) buf += " ";
          else flushPara();
        }
      },
      ontext(text) {
        if (skipDepth) return;
        buf += pre ? text : text.replace(/\s+/g, " ");
      },
      onclosetag(name) {
        if (SKIP.has(name)) {
          if (skipDepth) skipDepth--;
          return;
        }
        if (skipDepth) return;
        const h = HEADING.exec(name);
        if (h && heading) {
          sink.heading(heading, take());
          heading = 0;
          return;
        }
        switch (name) {
          case "pre":
            pre = Math.max(0, pre - 1);
            if (pre === 0 && tableDepth === 0 && lists.length === 0) sink.add("code", take(), null, true);
            return;
          case "li":
            if (buf.trim()) items.push(`${listMarker()} ${take().trim()}`);
            buf = "";
            return;
          case "ul":
          case "ol":
            if (buf.trim()) items.push(`${listMarker()} ${take().trim()}`);
            lists.pop();
            if (lists.length === 0) {
              if (tableDepth > 0 && inCell) buf = items.join("; ");
              else sink.add("list", items.join("\n"));
              items = [];
            }
            return;
          case "td":
          case "th":
            cells.push(take().replace(/\s+/g, " ").trim());
            inCell = false;
            return;
          case "tr":
            if (cells.some((c) => c)) rows.push(cells.join(" | "));
            cells = [];
            return;
          case "table":
            tableDepth = Math.max(0, tableDepth - 1);
            if (tableDepth === 0) {
              if (lists.length) items.push(...rows);
              else sink.add("table", rows.join("\n"));
              rows = [];
            }
            return;
        }
        if (BLOCK.has(name)) {
          if (inCell || heading) buf += " ";
          else flushPara();
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, recognizeSelfClosing: true },
  );
  // Feed in slices so the deadline is checked on very large inputs as well.
  const SLICE = 256 * 1024;
  for (let i = 0; i < html.length; i += SLICE) {
    budget.check();
    parser.write(html.slice(i, i + SLICE));
  }
  parser.end();
  if (heading) sink.heading(heading, take());
  flushPara();
  if (items.length) sink.add("list", items.join("\n"));
  if (rows.length) sink.add("table", rows.join("\n"));
  return { pageCount: null, blocks: sink.blocks };
}

export function parseHtml(data: Uint8Array, budget: ParseBudget): ParsedDocument {
  return parseHtmlString(decodeUtf8(data), budget);
}
