import type { RetrievalHit } from "@/lib/retrieval/types";
import type { ContextBlock } from "./prompt";
import { hasCjk } from "./references";

// Related questions are only worth showing if the knowledge base can answer them. Candidates
// come from the KB itself (its own FAQ questions, the headings of the passages retrieved) or
// from a model; each is then asked of retrieval the way a chat turn would, and shown only if it
// finds grounded passages that say something the current answer did not (see checkRelated).

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

const QUESTION_LINE = /(?:^|\n)\s*(?:(?:问|Q)\s*[：:.]\s*)?([^\n。！!]{4,80}?[？?])(?=\s|$)/g;

/** Questions the KB's own passages ask (FAQ entries, "问：…？"), then its headings, deduplicated. */
export function candidatesFromHits(question: string, hits: RetrievalHit[], context: ContextBlock[], max = 8): string[] {
  const zh = hasCjk(question);
  const norm = (q: string) => q.replace(/[\s？?。.!！，,]/g, "").toLowerCase();
  const seen = new Set([norm(question)]);
  const out: string[] = [];
  const add = (q: string) => {
    const k = norm(q);
    if (k.length < 4 || seen.has(k) || hasCjk(q) !== zh) return;
    seen.add(k);
    out.push(q.trim());
  };
  for (const h of hits) for (const m of h.content.matchAll(QUESTION_LINE)) add(m[1]!.replace(/^[-*•\d.)\s]+/, ""));
  for (const q of relatedFromReferences(question, context, max)) add(q);
  return out.slice(0, max);
}

export interface RelatedCheck {
  /** The passages retrieval finds for the candidate (min_score applied), best first. */
  hits: RetrievalHit[];
}

/**
 * Keeps the candidates retrieval can answer: at least one hit at the chat's min_score, and a best
 * passage that is not one the current answer already used (that would repeat the answer). At most
 * `max`, in the candidates' order; candidates are checked one at a time and the check stops once
 * enough are kept.
 */
export async function checkRelated(
  candidates: string[],
  answeredChunkIds: Set<string>,
  check: (q: string) => Promise<RelatedCheck>,
  max = 3,
): Promise<string[]> {
  const kept: string[] = [];
  const bestSeen = new Set<string>();
  for (const q of candidates) {
    if (kept.length >= max) break;
    const { hits } = await check(q);
    const best = hits[0];
    if (!best) continue;
    const key = best.chunkId ?? best.id;
    if (answeredChunkIds.has(key) || bestSeen.has(key)) continue;
    bestSeen.add(key);
    kept.push(q);
  }
  return kept;
}
