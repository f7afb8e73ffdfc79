import { LRUCache } from "lru-cache";
import { unwrapSoftBreaks } from "@/lib/retrieval/text/soft-breaks";
import { tokenize } from "@/lib/retrieval/text/tokenize";
import type { ContextBlock } from "../prompt";

// The built-in engine used when no chat model is configured (SPEC §10): it answers with the
// sentences of the references that best match the question, each with its [n], and says that
// it is extractive. No text is generated that is not in a reference.
export interface ExtractedSentence {
  index: number;
  text: string;
  score: number;
  order: number;
}

const SENTENCE_SPLIT = /(?<=[。！？；!?;])\s*|(?<=\.)\s+|\n+/;

/**
 * Sentences of a reference. Soft line breaks (a wrapped line that does not close its sentence)
 * are joined first: chunks indexed before ingestion joined them still hold them, and a sentence
 * cut at its line end read as two half sentences.
 */
export function splitSentences(text: string): string[] {
  return unwrapSoftBreaks(text)
    .split(SENTENCE_SPLIT)
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter((s) => s.length >= 4);
}

interface TokenizedSentence {
  text: string;
  /** Distinct tokens of the sentence. */
  distinct: readonly string[];
  /** Token count, repeats included. */
  count: number;
}

// The same references come back question after question, and tokenizing their sentences (jieba,
// OpenCC, stemming) was most of this engine's time per turn (profiled on 50 concurrent turns).
// Keyed by the text itself, so an edited chunk is simply a new entry; bounded to about 8 M
// characters (~16 MB) per process: on globalThis, as Next may bundle this module more than once.
const g = globalThis as unknown as { __kaSentenceTokens?: LRUCache<string, TokenizedSentence[]> };
const sentenceCache = (g.__kaSentenceTokens ??= new LRUCache<string, TokenizedSentence[]>({
  maxSize: 8_000_000,
  sizeCalculation: (v, key) => key.length + v.reduce((n, s) => n + s.text.length + s.distinct.length * 4, 1),
}));

function tokenizedSentences(content: string): TokenizedSentence[] {
  let sentences = sentenceCache.get(content);
  if (!sentences) {
    sentences = [];
    for (const text of splitSentences(content)) {
      const toks = tokenize(text);
      if (toks.length > 0) sentences.push({ text, distinct: [...new Set(toks)], count: toks.length });
    }
    sentenceCache.set(content, sentences);
  }
  return sentences;
}

/** A kept sentence must cover at least this share of the best sentence's question weight… */
const RELATIVE_FLOOR = 0.6;
/** …and at least this share of the whole question's weight (the first sentence excepted). */
const ABSOLUTE_FLOOR = 0.3;

/**
 * The sentences that answer the question, best first. Each question term is weighted by how
 * rare it is among the references' sentences (a term every sentence shares, such as the name
 * of the product the passages are about, says little about which sentence answers), and a
 * sentence earns its place only by covering a good part of that weight: at least
 * RELATIVE_FLOOR of the best sentence's and ABSOLUTE_FLOOR of the question's. Fewer, better
 * sentences: at most `max`, duplicates (chunk overlaps) once.
 */
export function selectSentences(question: string, context: ContextBlock[], max = 3): ExtractedSentence[] {
  const q = new Set(tokenize(question));
  // One object per candidate, filled in place (one shape, no copies per step).
  const all: Array<{ index: number; text: string; distinct: readonly string[]; count: number; hitScore: number; order: number; coverage: number; overlap: number; score: number }> = [];
  let order = 0;
  for (const block of context) {
    for (const s of tokenizedSentences(block.hit.content)) {
      all.push({ index: block.index, text: s.text, distinct: s.distinct, count: s.count, hitScore: block.hit.score, order: order++, coverage: 0, overlap: 0, score: 0 });
    }
  }
  if (all.length === 0) return [];
  // jieba's search mode gives a long word and the words inside it (第二季度 → 第二, 季度, 二季度…):
  // the question's concepts are its longest terms, and a part of one covers the share of it that
  // its length is, so one concept is not counted six times.
  const terms = [...q];
  const concepts = terms
    .filter((t) => !terms.some((u) => u !== t && u.length > t.length && u.includes(t)))
    .map((c) => ({ c, members: terms.filter((t) => c.includes(t)) }));
  // Only the question's terms matter: a sentence is looked at through them (no set per sentence).
  const credit = (distinct: readonly string[]) => {
    const out = new Array<number>(concepts.length).fill(0);
    for (const t of distinct) {
      if (!q.has(t)) continue;
      concepts.forEach(({ c }, k) => {
        if (c.includes(t)) out[k] = Math.max(out[k]!, t.length / c.length);
      });
    }
    return out;
  };
  const credits = all.map((s) => credit(s.distinct));
  // A concept found in few of the references' sentences says more about which one answers.
  const weights = concepts.map((_, k) => Math.log(1 + all.length / (1 + credits.filter((cr) => cr[k]! > 0).length)));
  const total = weights.reduce((sum, w) => sum + w, 0) || 1;

  all.forEach((s, i) => {
    const cr = credits[i]!;
    let covered = 0;
    let overlap = 0;
    for (let k = 0; k < cr.length; k++) {
      covered += cr[k]! * weights[k]!;
      if (cr[k]! > 0) overlap++;
    }
    s.coverage = covered / total;
    s.overlap = overlap;
    // Ties go to the shorter sentence and to the higher-ranked reference.
    s.score = s.coverage + (overlap / Math.sqrt(s.count)) * 0.03 + s.hitScore * 0.02;
  });
  const scored = all;
  // A question in the passage (an FAQ's "问：…？答：…") is not an answer: the sentence after it,
  // in the same reference, is, and it inherits the question's match.
  for (let i = 0; i < scored.length; i++) {
    const s = scored[i]!;
    if (!/[？?]["'”’」』）)]*$/.test(s.text)) continue;
    const next = scored[i + 1];
    if (next && next.index === s.index && !/[？?]["'”’」』）)]*$/.test(next.text) && s.score > next.score) {
      next.coverage = Math.max(next.coverage, s.coverage);
      next.overlap = Math.max(next.overlap, s.overlap);
      next.score = s.score;
    }
    s.overlap = 0;
  }
  const ranked = scored.filter((s) => s.overlap > 0).sort((a, b) => b.score - a.score || a.order - b.order);
  // Nothing shares a word with the question (the passage was found through its heading or its
  // neighbours): the opening sentence of the best reference, and nothing more.
  if (ranked.length === 0) return [toExtracted(all[0]!, 0)];
  const best = ranked[0]!.coverage;
  const kept: typeof ranked = [];
  const seen = new Set<string>();
  for (const s of ranked) {
    if (kept.length >= max) break;
    if (kept.length > 0 && (s.coverage < best * RELATIVE_FLOOR || s.coverage < ABSOLUTE_FLOOR)) break;
    const key = s.text.replace(/\s+/g, "");
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(s);
  }
  return kept.map((s) => toExtracted(s, s.score));
}

function toExtracted(s: { index: number; text: string; order: number }, score: number): ExtractedSentence {
  return { index: s.index, text: s.text.length > 400 ? `${s.text.slice(0, 400)}…` : s.text, score, order: s.order };
}

/**
 * The extractive answer: the kept sentences with their [n], as one paragraph for a single
 * sentence and as a list otherwise. It carries no "this is extractive" line: the turn's `done`
 * event and the stored message say `engine: "extractive"`, and the UI states it once, in its
 * own language (a line in the text came in the question's language and twice).
 */
export function composeExtractiveAnswer(question: string, context: ContextBlock[]): string {
  return extractAnswer(question, context).text;
}

/** The answer's text and, per cited reference index, the sentences it quotes from it. */
export function extractAnswer(question: string, context: ContextBlock[]): { text: string; quotes: Map<number, string> } {
  const sentences = selectSentences(question, context);
  const quotes = new Map<number, string>();
  for (const s of [...sentences].sort((a, b) => a.order - b.order)) {
    const before = quotes.get(s.index);
    // A table row quotes its whole table (a header row alone tells a reader nothing).
    const table = / \| /.test(s.text) ? tableAround(context.find((b) => b.index === s.index)?.hit.content ?? "", s.text) : null;
    const text = table ?? s.text;
    if (before?.includes(text)) continue;
    quotes.set(s.index, before ? `${before}${table ? "\n" : " "}${text}` : text);
  }
  return { text: composeFrom(sentences, context), quotes };
}

/** The run of table rows in `content` that holds `row`, or null. */
function tableAround(content: string, row: string): string | null {
  const lines = content.split("\n");
  const at = lines.findIndex((l) => l.trim() === row.trim());
  if (at < 0) return null;
  const isRow = (l: string | undefined) => l !== undefined && / \| |^\s*\|/.test(l);
  let a = at;
  let b = at;
  while (isRow(lines[a - 1])) a--;
  while (isRow(lines[b + 1])) b++;
  return b > a ? lines.slice(a, b + 1).join("\n") : null;
}

function composeFrom(sentences: ExtractedSentence[], context: ContextBlock[]): string {
  // A reference too short to hold a sentence is quoted as it stands.
  if (sentences.length === 0) return context[0] ? `${context[0].text.replace(/\s+/g, " ").trim().slice(0, 300)} [${context[0].index}]` : "";
  if (sentences.length === 1) return `${sentences[0]!.text} [${sentences[0]!.index}]`;
  return sentences.map((s) => `- ${s.text} [${s.index}]`).join("\n");
}

/** Streams a finished text in small pieces, like a model would, so the UI path is the same. */
export function* pieces(text: string, size = 12): Generator<string> {
  const chars = [...text];
  for (let i = 0; i < chars.length; i += size) yield chars.slice(i, i + size).join("");
}
