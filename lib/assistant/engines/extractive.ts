import { tokenize } from "@/lib/retrieval/text/tokenize";
import type { ContextBlock } from "../prompt";
import { hasCjk } from "../references";

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

export function selectSentences(question: string, context: ContextBlock[], max = 4): ExtractedSentence[] {
  const q = new Set(tokenize(question));
  const candidates: ExtractedSentence[] = [];
  let order = 0;
  for (const block of context) {
    for (const sentence of splitSentences(block.hit.content)) {
      const toks = tokenize(sentence);
      if (toks.length === 0) continue;
      const overlap = new Set(toks.filter((t) => q.has(t))).size;
      // Coverage of the question, lightly favouring short sentences and higher-ranked references.
      const score = overlap / Math.max(1, q.size) + overlap / Math.sqrt(toks.length) * 0.1 + block.hit.score * 0.05;
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
