import type { ChunkInput } from "@/lib/retrieval/types";
import { stripInvalid } from "./parsers/common";
import type { Block, ParsedDocument } from "./types";

// Structure-first chunking (SPEC §7): the document is cut at every heading (a chunk never
// crosses one) and packed paragraph by paragraph up to the target size; a paragraph longer
// than the target is cut at sentence ends (Chinese 。！？； and English . ! ? ;), a sentence
// longer than the target at a comma or space, code and tables at line ends. Consecutive chunks
// of one section share an overlap of whole trailing sentences. Every chunk keeps the pages it
// spans and its heading path joined with " / " exactly as written in the source.

export interface ChunkOptions {
  targetChars: number;
  overlapChars: number;
}

export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = { targetChars: 500, overlapChars: 80 };
export const HEADING_SEPARATOR = " / ";

interface Piece {
  text: string;
  page: number | null;
  block: number;
}

const CJK = /[\u2e80-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]/;
const CLOSERS = /[”’」』）)\]"'》〉】]/;

/** Splits text after sentence ends, keeping every character (concatenation = input). */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    let end = -1;
    if ("。！？；!?;\n".includes(c)) end = i + 1;
    else if (c === "." && (i + 1 >= text.length || /\s/.test(text[i + 1]!)) && !/\b(?:e\.g|i\.e|etc|vs|Mr|Mrs|Dr|No|Fig)$/i.test(text.slice(Math.max(0, i - 4), i))) end = i + 1;
    if (end < 0) continue;
    while (end < text.length && (CLOSERS.test(text[end]!) || "。！？!?".includes(text[end]!))) end++;
    while (end < text.length && (text[end] === " " || text[end] === "\t")) end++;
    out.push(text.slice(start, end));
    start = end;
    i = end - 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out.filter((s) => s.length > 0);
}

/** Cuts a too-long sentence at commas / spaces / anywhere, each part ≤ max. */
function hardSplit(s: string, max: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    let cut = Math.max(
      ...["，", "、", ",", "：", ":", "）", ")"].map((p) => window.lastIndexOf(p) + 1),
      window.lastIndexOf(" ") + 1,
    );
    if (cut < max * 0.5) cut = max;
    // Never cut a surrogate pair.
    if (/[\ud800-\udbff]/.test(rest[cut - 1] ?? "")) cut--;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest) out.push(rest);
  return out;
}

/** Splits one block into pieces no longer than the target. */
function blockPieces(b: Block, index: number, target: number): Piece[] {
  const text = b.text;
  if (text.length <= target) return [{ text, page: b.page, block: index }];
  const units = b.kind === "code" || b.kind === "table" || b.kind === "list"
    ? text.split(/(?<=\n)/)
    : splitSentences(text);
  const pieces: Piece[] = [];
  let cur = "";
  for (const u0 of units) {
    for (const u of u0.length > target ? hardSplit(u0, target) : [u0]) {
      if (cur && cur.length + u.length > target) {
        pieces.push({ text: cur, page: b.page, block: index });
        cur = "";
      }
      cur += u;
    }
  }
  if (cur) pieces.push({ text: cur, page: b.page, block: index });
  return pieces;
}

function joinPieces(pieces: Piece[]): { text: string; starts: number[] } {
  let s = "";
  // Where each piece starts in the joined text (before the final trim).
  const starts: number[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    if (i === 0) {
      s = p.text;
      starts.push(0);
    } else if (p.block !== pieces[i - 1]!.block) {
      s = `${s.trimEnd()}\n`;
      const text = p.text.trimStart();
      starts.push(s.length);
      s += text;
    } else {
      const needSpace = !/\s$/.test(s) && !/^\s/.test(p.text) && !(CJK.test(s[s.length - 1] ?? "") || CJK.test(p.text[0] ?? ""));
      s += needSpace ? " " : "";
      starts.push(s.length);
      s += p.text;
    }
  }
  const lead = s.length - s.trimStart().length;
  return { text: s.trim(), starts: starts.map((o) => Math.max(0, o - lead)) };
}

/**
 * Where each page begins inside a chunk that spans pages: [offset, page] pairs, the first at 0.
 * A reference then names the page holding the sentence it quotes, not the chunk's first page.
 * Null for a chunk on one page (or none).
 */
function pageMarksOf(pieces: Piece[], starts: number[], length: number): Array<[number, number]> | null {
  const marks: Array<[number, number]> = [];
  pieces.forEach((p, i) => {
    if (p.page === null) return;
    const at = Math.min(starts[i]!, length);
    if (marks.length === 0) marks.push([0, p.page]);
    else if (marks[marks.length - 1]![1] !== p.page) marks.push([at, p.page]);
  });
  return marks.length > 1 ? marks : null;
}

/** Whole trailing sentences of `pieces` totalling ≤ overlap chars (none if the last is longer). */
function overlapTail(pieces: Piece[], overlap: number): Piece[] {
  if (overlap <= 0) return [];
  const last = pieces[pieces.length - 1];
  if (!last) return [];
  const sentences = splitSentences(last.text);
  let tail = "";
  for (let i = sentences.length - 1; i >= 0; i--) {
    const next = sentences[i]! + tail;
    if (next.trim().length > overlap) break;
    tail = next;
  }
  // Only a part of the last piece is carried (never the whole piece: that would repeat it).
  if (!tail.trim() || tail.length >= last.text.length) return [];
  return [{ text: tail.trimStart(), page: last.page, block: last.block }];
}

export function chunkDocument(doc: ParsedDocument, options: Partial<ChunkOptions> = {}): ChunkInput[] {
  const target = Math.max(50, options.targetChars ?? DEFAULT_CHUNK_OPTIONS.targetChars);
  const overlap = Math.min(Math.max(0, options.overlapChars ?? DEFAULT_CHUNK_OPTIONS.overlapChars), Math.floor(target / 2));
  const chunks: ChunkInput[] = [];

  const emit = (pieces: Piece[], headingPath: string[]) => {
    // Parsers already clean their text; this guard keeps NUL & co. out of the database whatever
    // produced the blocks.
    const joined = joinPieces(pieces);
    const content = stripInvalid(joined.text).trim();
    if (!content) return;
    const pages = pieces.map((p) => p.page).filter((p): p is number => p !== null);
    const pageMarks = pageMarksOf(pieces, joined.starts, content.length);
    chunks.push({
      ordinal: chunks.length,
      content,
      pageStart: pages.length ? Math.min(...pages) : null,
      pageEnd: pages.length ? Math.max(...pages) : null,
      ...(pageMarks ? { pageMarks } : {}),
      headingPath: stripInvalid(headingPath.join(HEADING_SEPARATOR)),
    });
  };

  // Sections: maximal runs of non-heading blocks; a heading always starts a new one.
  const sections: Array<{ path: string[]; blocks: Array<{ b: Block; i: number }> }> = [];
  let current: (typeof sections)[number] | null = null;
  doc.blocks.forEach((b, i) => {
    if (b.kind === "heading") {
      current = null;
      return;
    }
    if (!b.text.trim()) return;
    if (!current) {
      current = { path: b.headingPath, blocks: [] };
      sections.push(current);
    }
    current.blocks.push({ b, i });
  });

  for (const section of sections) {
    const pieces = section.blocks.flatMap(({ b, i }) => blockPieces(b, i, target));
    const sectionChunks: Piece[][] = [];
    let buf: Piece[] = [];
    let bufLen = 0;
    let fresh = 0; // pieces in buf that are not overlap
    for (const p of pieces) {
      const len = p.text.length + 1;
      if (fresh > 0 && bufLen + len > target) {
        sectionChunks.push(buf);
        buf = overlapTail(buf, overlap);
        bufLen = buf.reduce((s, x) => s + x.text.length + 1, 0);
        fresh = 0;
      }
      buf.push(p);
      bufLen += len;
      fresh++;
    }
    if (fresh > 0) {
      // A small remainder joins the previous chunk of the section when that stays near target.
      const prev = sectionChunks[sectionChunks.length - 1];
      const restLen = buf.slice(buf.length - fresh).reduce((s, x) => s + x.text.length + 1, 0);
      const prevLen = prev?.reduce((s, x) => s + x.text.length + 1, 0) ?? 0;
      if (prev && restLen < target * 0.2 && prevLen + restLen <= target * 1.25) prev.push(...buf.slice(buf.length - fresh));
      else sectionChunks.push(buf);
    }
    for (const c of sectionChunks) emit(c, section.path);
  }
  // A document of headings only still has text worth finding.
  if (chunks.length === 0) {
    doc.blocks.forEach((b, i) => {
      if (b.kind === "heading") emit([{ text: b.text, page: b.page, block: i }], b.headingPath);
    });
  }
  return chunks;
}
