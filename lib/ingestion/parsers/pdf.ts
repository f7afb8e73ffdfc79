import { getDocumentProxy, getResolvedPDFJS } from "unpdf";
import { IngestionFailure, type ParseBudget, type ParsedDocument } from "../types";
import { BlockSink, describeError } from "./common";
import { checkPdfInflatedBytes, readPageItems } from "./pdf-limits";
import { textTooLarge } from "./text-limits";

// PDF via unpdf (pdf.js): text per page with page numbers kept. Lines are rebuilt from text
// item positions; paragraphs from vertical gaps; headings from font size relative to the body
// text (a PDF has no heading markup, and this is what a reader sees). Repeated page headers or
// footers and bare page numbers are dropped.

interface Line {
  text: string;
  y: number;
  size: number;
  page: number;
}

interface TextItemLike {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL?: boolean;
}

const CJK = /[\u2e80-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]/;

function joinLines(a: string, b: string): string {
  if (!a) return b;
  if (!b) return a;
  const last = a[a.length - 1]!;
  const first = b[0]!;
  if (CJK.test(last) || CJK.test(first)) return a + b;
  if (last === "-" && /[a-z]/i.test(a[a.length - 2] ?? "") && /[a-z]/.test(first)) return a.slice(0, -1) + b;
  return `${a} ${b}`;
}

function pageLines(items: TextItemLike[], page: number): Line[] {
  const lines: Line[] = [];
  let cur: Line | null = null;
  let lastEnd = 0;
  let forceBreak = false;
  for (const it of items) {
    if (typeof it.str !== "string") continue;
    const tr = it.transform;
    const x = tr[4] ?? 0;
    const y = tr[5] ?? 0;
    const size = Math.abs(it.height) || Math.hypot(tr[2] ?? 0, tr[3] ?? 0) || 1;
    if (it.str === "") {
      if (it.hasEOL) forceBreak = true;
      continue;
    }
    const sameLine = cur && !forceBreak && Math.abs(cur.y - y) <= 0.5 * Math.max(size, cur.size);
    if (!sameLine) {
      if (cur) lines.push(cur);
      cur = { text: it.str, y, size, page };
    } else if (cur) {
      const gap = x - lastEnd;
      const needSpace = gap > 0.2 * size && !cur.text.endsWith(" ") && !it.str.startsWith(" ") &&
        !(CJK.test(cur.text[cur.text.length - 1] ?? "") && CJK.test(it.str[0] ?? ""));
      cur.text += (needSpace ? " " : "") + it.str;
      cur.size = Math.max(cur.size, size);
    }
    lastEnd = x + (it.width || 0);
    forceBreak = !!it.hasEOL;
  }
  if (cur) lines.push(cur);
  for (const l of lines) l.text = l.text.replace(/\s+/g, " ").trim();
  return lines.filter((l) => l.text);
}

const PAGE_NUMBER = /^(?:[-–—\s]*\d{1,5}[-–—\s]*|第\s*\d{1,5}\s*页(?:\s*[/／,，]?\s*共\s*\d{1,5}\s*页)?|page\s+\d{1,5}(?:\s+of\s+\d{1,5})?|\d{1,5}\s*\/\s*\d{1,5})$/i;

/** Drops bare page numbers and header/footer lines repeated on most pages. */
function dropFurniture(pages: Line[][]): Line[][] {
  const count = new Map<string, number>();
  const key = (l: Line) => l.text.replace(/\d+/g, "#");
  for (const lines of pages) {
    const edge = new Set<string>();
    for (const l of [lines[0], lines[1], lines[lines.length - 1], lines[lines.length - 2]]) if (l) edge.add(key(l));
    for (const k of edge) count.set(k, (count.get(k) ?? 0) + 1);
  }
  const repeated = new Set<string>();
  // Long documents: on most pages (a chapter opening may lack its header). Two or three pages
  // ("Lighthouse manual page 1/3"): on every page.
  const needed = pages.length >= 4 ? Math.max(3, 0.6 * pages.length) : pages.length;
  if (pages.length >= 2) {
    for (const [k, n] of count) if (n >= needed) repeated.add(k);
  }
  return pages.map((lines) =>
    lines.filter((l, i) => {
      const atEdge = i <= 1 || i >= lines.length - 2;
      if (!atEdge) return true;
      if (PAGE_NUMBER.test(l.text)) return false;
      return !repeated.has(key(l));
    }),
  );
}

function median(values: Array<[number, number]>): number {
  // values: [size, weight]
  const sorted = [...values].sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((s, v) => s + v[1], 0);
  let acc = 0;
  for (const [v, w] of sorted) {
    acc += w;
    if (acc >= total / 2) return v;
  }
  return sorted[sorted.length - 1]?.[0] ?? 0;
}

function mapPdfError(e: unknown): IngestionFailure {
  if (e instanceof IngestionFailure) return e;
  const name = (e as { name?: string })?.name ?? "";
  if (name === "PasswordException") {
    return new IngestionFailure(
      "FILE_TYPE_UNSUPPORTED",
      "The PDF is encrypted (password-protected), so its text cannot be read. Remove the password (e.g. print or export it to a new PDF) and upload it again.",
    );
  }
  if (name === "InvalidPDFException" || name === "MissingPDFException" || name === "FormatError" || name === "UnknownErrorException") {
    return new IngestionFailure(
      "FILE_TYPE_UNSUPPORTED",
      `The PDF is damaged or incomplete and cannot be read (${describeError(e)}). Export or download it again and upload the new copy.`,
    );
  }
  return new IngestionFailure("FILE_TYPE_UNSUPPORTED", `The PDF could not be read: ${describeError(e)}.`);
}

export interface PdfProgress {
  (pagesDone: number, pageCount: number): void;
}

/** Loads pdf.js now (a parse thread's start) instead of in the first PDF's parse (~0.3-0.5 s). */
export async function loadPdfJs(): Promise<void> {
  await getResolvedPDFJS();
}

export async function parsePdf(data: Uint8Array, budget: ParseBudget, onProgress?: PdfProgress): Promise<ParsedDocument> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
  // Decompression bombs are refused before pdf.js inflates anything (pdf-limits.ts).
  await checkPdfInflatedBytes(data, budget);
  try {
    // pdf.js may detach the buffer it is given: pass a copy.
    pdf = await getDocumentProxy(new Uint8Array(data), {
      disableFontFace: true,
      useSystemFonts: false,
      verbosity: 0,
      stopAtErrors: false,
    });
  } catch (e) {
    throw mapPdfError(e);
  }
  try {
    const pageCount = pdf.numPages;
    if (pageCount > budget.maxPages) {
      throw new IngestionFailure(
        "FILE_TOO_LARGE",
        `The PDF has ${pageCount.toLocaleString("en-US")} pages; the limit is ${budget.maxPages.toLocaleString("en-US")} pages per file. Split it into smaller files.`,
      );
    }
    const pages: Line[][] = [];
    let textChars = 0;
    for (let p = 1; p <= pageCount; p++) {
      budget.check();
      let lines: Line[] = [];
      try {
        const page = await pdf.getPage(p);
        // Streamed, so the text-item and time limits are checked inside the page.
        const items = await readPageItems<TextItemLike>(page, p, budget);
        lines = pageLines(items, p);
        page.cleanup();
        for (const l of lines) textChars += l.text.length;
        if (textChars > budget.limits.maxTextChars) throw textTooLarge(budget.limits.maxTextChars);
      } catch (e) {
        if (e instanceof IngestionFailure) throw e;
        // One unreadable page does not sink the document; a document where every page fails
        // ends as "no text" below.
        lines = [];
      }
      pages.push(lines);
      onProgress?.(p, pageCount);
    }
    const kept = dropFurniture(pages);
    const all = kept.flat();
    const chars = all.reduce((s, l) => s + l.text.replace(/\s/g, "").length, 0);
    if (chars === 0) {
      throw new IngestionFailure(
        "FILE_TYPE_UNSUPPORTED",
        `scanned PDF / no text layer: none of its ${pageCount} page(s) contains extractable text (it is probably scanned images). Run OCR on it, or upload a text-based PDF or DOCX.`,
      );
    }
    const body = median(all.map((l) => [Math.round(l.size * 2) / 2, l.text.length]));
    const isHeadingLine = (l: Line) => l.size >= body * 1.18 && l.text.length <= 80 && !/[。！？；.!?;,，]$/.test(l.text);
    const headingSizes = [...new Set(all.filter(isHeadingLine).map((l) => Math.round(l.size * 2) / 2))].sort((a, b) => b - a);
    // A largest size used by a single line (the document title on the cover) is a title: it
    // heads the text before the first chapter but does not become the parent of every chapter.
    const top = headingSizes[0];
    const titleOnly = headingSizes.length > 1 && all.filter((l) => isHeadingLine(l) && Math.round(l.size * 2) / 2 === top).length === 1;
    const levels = titleOnly ? headingSizes.slice(1) : headingSizes;
    const levelOf = (size: number) => {
      const s = Math.round(size * 2) / 2;
      if (titleOnly && s === top) return 1;
      return Math.min(6, levels.indexOf(s) + 1);
    };

    const sink = new BlockSink();
    for (const lines of kept) {
      let para = "";
      let paraPage = 0;
      let prev: Line | null = null;
      let pendingHeading: Line | null = null;
      const flushPara = () => {
        if (para) sink.add("paragraph", para, paraPage);
        para = "";
      };
      const flushHeading = () => {
        if (pendingHeading) sink.heading(levelOf(pendingHeading.size), pendingHeading.text, pendingHeading.page);
        pendingHeading = null;
      };
      for (const l of lines) {
        if (isHeadingLine(l) && levelOf(l.size) > 0) {
          flushPara();
          // A heading that wraps onto a second line of the same size is one heading.
          if (pendingHeading && prev && Math.abs(pendingHeading.size - l.size) < 0.5 && prev.y - l.y < l.size * 1.8) {
            (pendingHeading as Line).text = joinLines((pendingHeading as Line).text, l.text);
          } else {
            flushHeading();
            pendingHeading = { ...l };
          }
          prev = l;
          continue;
        }
        flushHeading();
        const gap = prev ? prev.y - l.y : 0;
        const lineStep = Math.max(l.size, prev?.size ?? l.size);
        const newPara = !prev || gap > lineStep * 1.75 || gap < -lineStep || Math.abs((prev?.size ?? l.size) - l.size) > 1;
        if (newPara) flushPara();
        if (!para) paraPage = l.page;
        para = joinLines(para, l.text);
        prev = l;
      }
      flushHeading();
      flushPara();
    }
    return { pageCount, blocks: sink.blocks };
  } catch (e) {
    throw mapPdfError(e);
  } finally {
    await pdf.loadingTask.destroy().catch(() => {});
  }
}
