// The text "copy answer" puts on the clipboard. Without references the citation markers go
// (they would point at nothing); with references they are renumbered as the reader sees them
// (cited first, in citation order) and the cited passages follow, each with its file and page.
import type { SourceReference } from "@/components/api/types";
import { orderReferences } from "./citation-order";
import { splitMarkers } from "./markers";
import { plainQuote } from "./quote-text";

export interface CopyLabels {
  references: string;
  page: (page: number) => string;
}

export function answerCopyText(content: string, references: SourceReference[], withReferences: boolean, labels: CopyLabels): string {
  const known = new Set(references.map((r) => r.index));
  if (!withReferences) {
    const text = splitMarkers(content)
      .map((s) => (s.type === "text" ? s.value : known.has(s.index) ? "" : s.raw))
      .join("");
    // A marker removed before punctuation leaves a space behind ("valid [1]." → "valid .").
    return text.replace(/[ \t]+([.,;:!?。，；：！？])/g, "$1").replace(/[ \t]+$/gm, "").trim();
  }
  const ordered = orderReferences(content, references);
  const text = splitMarkers(content)
    .map((s) => (s.type === "text" ? s.value : known.has(s.index) ? `[${ordered.displayOf.get(s.index)}]` : s.raw))
    .join("")
    .trim();
  if (ordered.cited.length === 0) return text;
  const lines = ordered.cited.map(({ reference: r, display }) => {
    const where = [r.file_name ?? r.source_name ?? r.source_uri ?? "", r.page_start ? labels.page(r.page_start) : ""].filter(Boolean).join(", ");
    return `[${display}] ${where}${where ? ": " : ""}${plainQuote(r.quote)}`;
  });
  return `${text}\n\n${labels.references}\n${lines.join("\n")}`;
}
