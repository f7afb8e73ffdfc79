// Soft line breaks: the line ends of text wrapped at a fixed width (Markdown and plain-text
// sources wrapped at ~100 columns, PDF lines) are not sentence or paragraph ends. Ingestion joins
// them so chunks, quotes and highlights hold whole sentences; the extractive engine joins them
// again in chunks indexed before that. Pure text, shared by both (no "server-only").

const CJK = /[\u2e80-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]/;
// A line that starts a block of its own: list item, table row, heading, quote, code fence.
const BLOCK_START = /^\s*(?:[-*+•·]\s|\d{1,3}[.)、]\s?|[（(]\d{1,2}[)）]|[一二三四五六七八九十]+、|\||#{1,6}\s|>|```|~~~)/;
// A line whose end closes a sentence or introduces what follows (a list, a table).
const CLOSED = /[。！？!?；;:：]["'”’」』）)]*$/;

/** Joins two pieces of one paragraph: no space between CJK characters, one space otherwise. */
export function joinSoft(a: string, b: string): string {
  if (!a) return b;
  if (!b) return a;
  const last = a[a.length - 1]!;
  const first = b[0]!;
  if (CJK.test(last) || CJK.test(first)) return a + b;
  return `${a} ${b}`;
}

/**
 * Markdown (CommonMark): every line break inside a paragraph is soft, except a hard break (two
 * trailing spaces or a backslash). `lines` are the paragraph's raw lines.
 */
export function joinMarkdownLines(lines: string[]): string {
  let out = "";
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const hard = / {2,}$/.test(raw) || /\\$/.test(raw);
    const text = raw.replace(/\\$/, "").trim();
    out = out.endsWith("\n") ? out + text : joinSoft(out, text);
    if (hard && i < lines.length - 1) out += "\n";
  }
  return out;
}

/**
 * Plain text and stored chunks, where a line break may be meant: a break is soft when the line
 * before it is long (a wrapped line, not a label or an address line) and neither closes a
 * sentence nor is followed by a line that starts a block of its own.
 */
export function unwrapSoftBreaks(text: string): string {
  if (!text.includes("\n")) return text;
  const lines = text.split("\n");
  const longest = Math.max(...lines.map((l) => l.trimEnd().length));
  let out = lines[0]!.trimEnd();
  for (let i = 1; i < lines.length; i++) {
    const prev = lines[i - 1]!.trimEnd();
    const next = lines[i]!.trim();
    const cjk = CJK.test(prev[prev.length - 1] ?? "");
    const wrapped = prev.length >= (cjk ? 16 : 40) && prev.length >= longest * 0.6;
    // Table rows (Markdown pipes, or DOCX rows written as "a | b | c") are lines of their own.
    const row = (l: string) => /^\s*(?:\||#|```|~~~)/.test(l) || (l.match(/ \| /g)?.length ?? 0) >= 1;
    const soft = next !== "" && prev !== "" && wrapped && !CLOSED.test(prev) && !BLOCK_START.test(next) && !row(prev) && !row(next);
    out = soft ? joinSoft(out, next) : `${out}\n${lines[i]!.trimEnd()}`;
  }
  return out;
}
