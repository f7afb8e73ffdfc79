import { LRUCache } from "lru-cache";
import { tokenize } from "@/lib/retrieval/text/tokenize";
import type { ContextBlock } from "@/lib/assistant/prompt";
import { hasCjk } from "@/lib/assistant/references";

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

export function splitSentences(text: string): string[] {
  return text
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
const g = globalThis as unknown as { __kaOldSentenceTokens?: LRUCache<string, TokenizedSentence[]> };
const sentenceCache = (g.__kaOldSentenceTokens ??= new LRUCache<string, TokenizedSentence[]>({
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

export function selectSentences(question: string, context: ContextBlock[], max = 4): ExtractedSentence[] {
  const q = new Set(tokenize(question));
  const candidates: ExtractedSentence[] = [];
  let order = 0;
  for (const block of context) {
    for (const { text: sentence, distinct, count } of tokenizedSentences(block.hit.content)) {
      let overlap = 0;
      for (const t of distinct) if (q.has(t)) overlap++;
      // Coverage of the question, lightly favouring short sentences and higher-ranked references.
      const score = overlap / Math.max(1, q.size) + overlap / Math.sqrt(count) * 0.1 + block.hit.score * 0.05;
      candidates.push({ index: block.index, text: sentence.length > 400 ? `${sentence.slice(0, 400)}…` : sentence, score, order: order++ });
    }
  }
  const withOverlap = candidates.filter((c) => c.score > 0.1);
  const pool = withOverlap.length > 0 ? withOverlap : candidates.slice(0, 2);
  const chosen = [...pool].sort((a, b) => b.score - a.score).slice(0, max);
  // Read in the order of the references, so the answer flows like the sources.
  return chosen.sort((a, b) => a.index - b.index || a.order - b.order);
}

export function composeExtractiveAnswer(question: string, context: ContextBlock[]): string {
  const zh = hasCjk(question);
  const sentences = selectSentences(question, context);
  const intro = zh
    ? "以下内容直接摘自知识库中检索到的资料（抽取式回答，未使用生成模型）：\n\n"
    : "These passages are quoted from the knowledge base (extractive answer; no generative model was used):\n\n";
  const lines = sentences.map((s) => `- ${s.text} [${s.index}]`).join("\n");
  const outro = zh ? "\n\n请点击引用编号查看原文。" : "\n\nOpen a reference number to read the source.";
  return intro + lines + outro;
}

/** Streams a finished text in small pieces, like a model would, so the UI path is the same. */
export function* pieces(text: string, size = 12): Generator<string> {
  const chars = [...text];
  for (let i = 0; i < chars.length; i += size) yield chars.slice(i, i + size).join("");
}
