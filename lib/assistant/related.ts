import type { ContextBlock } from "./prompt";
import { hasCjk } from "./references";

/** Follow-up questions derived from the references' headings and files; never new facts. */
export function relatedFromReferences(question: string, context: ContextBlock[], max = 3): string[] {
  const zh = hasCjk(question);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const b of context) {
    const heading = b.hit.headingPath.split(" / ").filter(Boolean).pop();
    const subject = heading ?? b.hit.fileName.replace(/\.[a-z0-9]+$/i, "");
    if (!subject || seen.has(subject)) continue;
    seen.add(subject);
    out.push(zh ? `「${subject}」还有哪些要点？` : `What else does "${subject}" cover?`);
    if (out.length >= max) break;
  }
  return out;
}

export function parseRelated(text: string, max = 3): string[] {
  return text
    .split(/\n+/)
    .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)、])\s*/, "").trim())
    .filter((l) => l.length >= 4 && l.length <= 120)
    .slice(0, max);
}
