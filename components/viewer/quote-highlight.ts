// Locates a reference quote inside a page or chunk text so the viewer can highlight it. Quotes
// are cut from chunk content (maybe with an ellipsis) and PDF text has arbitrary line breaks,
// so matching ignores whitespace and falls back to the longest matching prefix.

export interface TextRange {
  start: number;
  end: number;
  /** The whole quote matched (not only a prefix of it). */
  complete?: boolean;
}

const ELLIPSIS = /^(?:\.{3}|…)+|(?:\.{3}|…)+$/g;
const MIN_PREFIX = 8;

export function findQuoteRange(text: string, quote: string): TextRange | null {
  const q = quote.replace(ELLIPSIS, "").replace(/\s+/g, "");
  if (!q || !text) return null;
  // Map from whitespace-free text back to original offsets.
  const positions: number[] = [];
  let compact = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (/\s/.test(ch)) continue;
    compact += ch;
    positions.push(i);
  }
  const lowerCompact = compact.toLowerCase();
  const lowerQ = q.toLowerCase();
  let len = lowerQ.length;
  while (len >= Math.min(MIN_PREFIX, lowerQ.length)) {
    const at = lowerCompact.indexOf(lowerQ.slice(0, len));
    if (at >= 0) {
      const start = positions[at]!;
      const complete = len === lowerQ.length;
      return { start, end: wholeEnd(text, positions[at + len - 1]! + 1, complete), complete };
    }
    // Halve the remaining length quickly, then the loop stops below the minimum.
    len = len > 64 ? Math.floor(len * 0.75) : len - Math.max(1, Math.floor(len / 8));
  }
  return null;
}

const WORD = /[\p{L}\p{N}_'’-]/u;
const CJK_CHAR = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]/;

/**
 * A highlight never ends inside a character or a word: a surrogate pair is kept whole, and a
 * prefix match (the quote runs on past this text, e.g. onto the next page) is extended to the end
 * of the word it stopped in ("…the Rotholm lighthouse w" → "…lighthouse was"). CJK text has no
 * word spaces, so there a character is the unit.
 */
function wholeEnd(text: string, end: number, complete: boolean): number {
  let e = end;
  if (/[\ud800-\udbff]/.test(text[e - 1] ?? "")) e++;
  if (complete) return e;
  const last = text[e - 1] ?? "";
  if (!WORD.test(last) || CJK_CHAR.test(last)) return e;
  while (e < text.length && WORD.test(text[e]!) && !CJK_CHAR.test(text[e]!)) e++;
  return e;
}

export type HighlightSegment = { text: string; mark: boolean };

export function splitByRange(text: string, range: TextRange | null): HighlightSegment[] {
  if (!range) return [{ text, mark: false }];
  const parts: HighlightSegment[] = [];
  if (range.start > 0) parts.push({ text: text.slice(0, range.start), mark: false });
  parts.push({ text: text.slice(range.start, range.end), mark: true });
  if (range.end < text.length) parts.push({ text: text.slice(range.end), mark: false });
  return parts;
}
