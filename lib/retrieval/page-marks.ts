// The page of a quote inside a chunk that spans pages (issue 20 item 4). The chunker stores
// where each page begins in a chunk's content (chunks.page_marks, [[offset, page], ...]); a
// reference then names the page(s) holding the sentence it quotes instead of the chunk's whole
// range ("第 1–3 页" for an answer on page 2). Pure, except chunkPageMarks (one indexed read).
import type { Db } from "@/lib/db/client";

export type PageMarks = Array<[number, number]>;

/** The page marks of those of `ids` that span pages. */
export async function chunkPageMarks(db: Db, ids: string[]): Promise<Map<string, PageMarks>> {
  const out = new Map<string, PageMarks>();
  if (!ids.length) return out;
  const rows = await db.$queryRawUnsafe<{ id: string; page_marks: unknown }[]>(
    `SELECT id, page_marks FROM chunks WHERE id = ANY($1::text[]) AND page_marks IS NOT NULL`,
    ids,
  );
  for (const r of rows) {
    const marks = typeof r.page_marks === "string" ? JSON.parse(r.page_marks) : r.page_marks;
    if (Array.isArray(marks) && marks.length > 1) out.set(r.id, marks as PageMarks);
  }
  return out;
}

const pageAt = (marks: PageMarks, offset: number) => {
  let page = marks[0]![1];
  for (const [at, p] of marks) if (at <= offset) page = p;
  return page;
};

/**
 * The first and last page of `quote` in `content`. Whitespace is ignored when matching (quotes
 * join soft line breaks; a trailing "…" marks a cut), so a quote taken from a chunk is found
 * whatever its line breaks. Null when the quote is not in the content.
 */
export function quotePages(content: string, quote: string, marks: PageMarks): { start: number; end: number } | null {
  const q = quote.replace(/(?:…|\.{3})$/, "").replace(/\s+/g, "");
  if (!q) return null;
  const positions: number[] = [];
  let compact = "";
  for (let i = 0; i < content.length; i++) {
    if (/\s/.test(content[i]!)) continue;
    compact += content[i];
    positions.push(i);
  }
  const at = compact.indexOf(q);
  if (at < 0) return null;
  return { start: pageAt(marks, positions[at]!), end: pageAt(marks, positions[at + q.length - 1]!) };
}
