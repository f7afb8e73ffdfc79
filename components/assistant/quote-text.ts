// Reference quotes are source text: Markdown files keep their markup (`**Admin console →
// Members → Invite**`, `| a | b |`) and DOCX tables come as "a | b | c" rows. A card shows what
// a reader of the source sees: inline markup removed, tables as small tables. The quote itself
// stays as stored (the viewer matches it against the source). Pure.

export type QuoteView = { kind: "text"; text: string } | { kind: "table"; rows: string[][]; before: string; after: string };

export function plainQuote(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\((?:[^)]*)\)/g, "$1")
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, "$2")
    .replace(/(^|[\s(（])[*_](?=\S)([^*_\n]*?\S)[*_](?=[\s).,;:!?，。；：）]|$)/g, "$1$2")
    .replace(/`([^`\n]+)`/g, "$1")
    .replace(/^ {0,3}#{1,6}\s+/gm, "")
    .replace(/^ {0,3}>\s?/gm, "");
}

const isRow = (line: string) => /^\s*\|.*\|\s*$/.test(line) || (line.match(/ \| /g)?.length ?? 0) >= 1;
const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((c) => plainQuote(c.trim()));

/** A quote holding two or more table rows of one width renders as a table, the rest as text. */
export function quoteView(raw: string): QuoteView {
  const text = plainQuote(raw);
  const lines = raw.split("\n");
  const first = lines.findIndex(isRow);
  if (first < 0) return { kind: "text", text };
  let last = first;
  while (last + 1 < lines.length && isRow(lines[last + 1]!)) last++;
  const rows = lines
    .slice(first, last + 1)
    .filter((l) => !/^\s*\|?[\s:|-]+\|?\s*$/.test(l) || !l.includes("-"))
    .map(cells);
  const width = rows[0]?.length ?? 0;
  if (rows.length < 2 || width < 2 || rows.some((r) => r.length !== width)) return { kind: "text", text };
  return { kind: "table", rows, before: plainQuote(lines.slice(0, first).join("\n")).trim(), after: plainQuote(lines.slice(last + 1).join("\n")).trim() };
}
