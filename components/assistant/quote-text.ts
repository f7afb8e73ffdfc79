// Reference quotes are source text: Markdown files keep their markup (`**Admin console →
// Members → Invite**`, `| a | b |`) and DOCX tables come as "a | b | c" rows. A card shows what
// a reader of the source sees: the quote is parsed as Markdown (mdast-util-from-markdown with
// GFM, the parser react-markdown already ships to the answer renderer) and shown as its text,
// tables as small tables. The quote itself stays as stored (the viewer matches it against the
// source). Pure.
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import type { Nodes, Root, Table } from "mdast";

export type QuoteView = { kind: "text"; text: string } | { kind: "table"; rows: string[][]; before: string; after: string };

const parse = (text: string): Root => fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });

// Blocks are separated by a line break, inline content joined as written. Raw HTML stays
// literal text (React escapes it); code keeps its value.
function textOf(node: Nodes): string {
  switch (node.type) {
    case "text":
    case "inlineCode":
    case "code":
    case "html":
      return node.value;
    case "image":
      return node.alt ?? "";
    case "break":
      return "\n";
    case "table":
      return tableRows(node)
        .map((r) => r.join(" | "))
        .join("\n");
    case "list":
      // List markers stay readable: "3. Step" keeps its number, "- item" reads "• item".
      return node.children.map((item, i) => `${node.ordered ? `${(node.start ?? 1) + i}.` : "•"} ${textOf(item)}`).join("\n");
    case "root":
    case "blockquote":
    case "listItem":
      return node.children.map(textOf).join("\n");
    default:
      return "children" in node ? (node.children as Nodes[]).map(textOf).join("") : "";
  }
}

function tableRows(table: Table): string[][] {
  return table.children.map((row) => row.children.map((cell) => cell.children.map(textOf).join("").trim()));
}

export function plainQuote(text: string): string {
  if (!text.trim()) return "";
  return textOf(parse(text)).trim();
}

// A DOCX table arrives as "a | b | c" lines (the parser's own format, not Markdown).
const isDocxRow = (line: string) => (line.match(/ \| /g)?.length ?? 0) >= 1 && !/^\s*\|/.test(line);

/** A quote holding two or more table rows of one width renders as a table, the rest as text. */
export function quoteView(raw: string): QuoteView {
  const root = parse(raw);
  const at = root.children.findIndex((n) => n.type === "table");
  if (at >= 0) {
    const rows = tableRows(root.children[at] as Table);
    const width = rows[0]?.length ?? 0;
    if (rows.length >= 2 && width >= 2) {
      const before = root.children.slice(0, at).map(textOf).join("\n").trim();
      const after = root.children.slice(at + 1).map(textOf).join("\n").trim();
      return { kind: "table", rows, before, after };
    }
  }
  const lines = raw.split("\n");
  const first = lines.findIndex(isDocxRow);
  if (first >= 0) {
    let last = first;
    while (last + 1 < lines.length && isDocxRow(lines[last + 1]!)) last++;
    const rows = lines.slice(first, last + 1).map((l) => l.split(" | ").map((c) => plainQuote(c.trim())));
    const width = rows[0]?.length ?? 0;
    if (rows.length >= 2 && width >= 2 && rows.every((r) => r.length === width)) {
      return { kind: "table", rows, before: plainQuote(lines.slice(0, first).join("\n")), after: plainQuote(lines.slice(last + 1).join("\n")) };
    }
  }
  return { kind: "text", text: plainQuote(raw) };
}
