// Splits answer text into plain text and `[n]` citation markers (SPEC §5: markers refer to a
// reference `index`). Pure, so the Markdown plugin and unit tests share one definition.

export type MarkerSegment = { type: "text"; value: string } | { type: "marker"; index: number; raw: string };

// Only 1–3 digit numbers count: "[2024]" in a date range is text, not a citation.
const MARKER = /\[(\d{1,3})\]/g;

export function splitMarkers(text: string): MarkerSegment[] {
  const out: MarkerSegment[] = [];
  let last = 0;
  for (const m of text.matchAll(MARKER)) {
    const at = m.index ?? 0;
    const index = Number(m[1]);
    if (index < 1) continue;
    if (at > last) out.push({ type: "text", value: text.slice(last, at) });
    out.push({ type: "marker", index, raw: m[0] });
    last = at + m[0].length;
  }
  if (last < text.length) out.push({ type: "text", value: text.slice(last) });
  return out;
}

/** The distinct marker indexes in order of first appearance. */
export function markerIndexes(text: string): number[] {
  const seen = new Set<number>();
  for (const s of splitMarkers(text)) if (s.type === "marker") seen.add(s.index);
  return [...seen];
}
