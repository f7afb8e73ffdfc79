// Where a passage contains the query's terms, as character ranges of the passage itself (the
// retrieval test page marks them). The index holds normalized terms (lowercased, Porter-stemmed,
// Simplified Chinese), so matching goes through the same tokenizer: a Latin word or number is
// marked when its own tokens are among the terms; a Chinese term is marked wherever it occurs.
import { simplifyChinese, tokenize, WORD_RE } from "./tokenize";

const CJK_CHAR = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/u;
const CJK_TERM = /^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+$/u;

export function matchedRanges(text: string, terms: ReadonlySet<string>): [number, number][] {
  const ranges: [number, number][] = [];
  if (!text || terms.size === 0) return ranges;
  const folded = text.toLowerCase();
  for (const m of folded.matchAll(new RegExp(WORD_RE.source, "gu"))) {
    const start = m.index ?? 0;
    if (CJK_CHAR.test(m[0])) continue; // Han runs: by term occurrence below
    if (tokenize(m[0]).some((t) => terms.has(t))) ranges.push([start, start + m[0].length]);
  }
  // Character-level conversion keeps positions when the lengths agree (they do for the
  // Traditional variants OpenCC maps one to one); otherwise the original text is searched.
  const simplified = simplifyChinese(text);
  const haystack = simplified.length === text.length ? simplified : text;
  for (const term of terms) {
    if (!CJK_TERM.test(term)) continue;
    for (let i = haystack.indexOf(term); i >= 0; i = haystack.indexOf(term, i + term.length)) ranges.push([i, i + term.length]);
  }
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged.at(-1);
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}
