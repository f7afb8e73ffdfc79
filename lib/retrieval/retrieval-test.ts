import "server-only";
// The retrieval test page (issue 21): one question through the same runtime retrieve() the chat
// uses, with the chat's defaults (top_k 8, pool 2 × top_k, env min_score, the configured
// embedding and rerank models), in references_only semantics: it never calls a chat model (so no
// translation either; the page says when the chat would translate). Every hit comes with every
// score that decided its rank, and the page learns whether grounded mode would answer at the
// chosen min_score and, if not, why. The caller has checked write access to the KB.
import { getRawDb } from "@/lib/db/client";
import { getEnv } from "@/lib/env";
import { getModelConfig } from "@/lib/models/config";
import type { AnswerabilityDiagnostics, HitScores } from "./kb-search";
import type { AnswerabilityView, GroundedVerdict, RetrievalTestHit, RetrievalTestResult } from "./wire-types";
import { documentLanguages, planTranslation } from "./query-translation";
import { getRetrievalRuntime } from "./runtime";
import { matchedRanges } from "./text/highlight";
import { tokenize } from "./text/tokenize";

export interface RetrievalTestInput {
  query: string;
  file_ids: string[] | null;
  top_k: number | null;
  min_score: number | null;
}




export type { GroundedVerdict, RetrievalTestHit, RetrievalTestResult };

export const DEFAULT_TEST_TOP_K = 8;

/**
 * Whether grounded chat would answer at `minScore`, from hits retrieved at min_score 0: it
 * answers iff the best hit's reported (capped) score reaches min_score, as the core's filter
 * does. The retrieval test page and the KB evaluation (evaluation/runner.ts) both use this.
 */
export function groundedVerdict(
  hits: { score: number; scores: Pick<HitScores, "relevance"> | null }[],
  a: Pick<AnswerabilityDiagnostics, "tau" | "ceiling" | "cap"> | undefined | null,
  minScore: number,
): GroundedVerdict {
  const best = hits[0]?.score ?? 0;
  if (!hits.length) return { answer: false, reason: "no_match" };
  if (best >= minScore) return { answer: true, reason: "ok" };
  // The answerability ceiling (not the hit's own relevance) is what held the best score below min_score.
  if (a && a.tau !== null && a.ceiling < minScore && (hits[0]!.scores?.relevance ?? 0) >= minScore) return { answer: false, reason: "answerability", cap: a.cap };
  return { answer: false, reason: "below_min_score", best };
}
/** Quotes shown in full up to this length (chunks are ~650 characters by default). */
const MAX_QUOTE_CHARS = 2000;

export async function runRetrievalTest(
  ctx: { userId: string; sessionId: string; knowledgeId: string; signal: AbortSignal },
  input: RetrievalTestInput,
): Promise<RetrievalTestResult> {
  const env = getEnv();
  const cfg = getModelConfig();
  const topK = input.top_k ?? DEFAULT_TEST_TOP_K;
  const minScore = input.min_score ?? env.RETRIEVAL_MIN_SCORE;
  const runtime = getRetrievalRuntime();
  // min_score 0 here: every hit is shown, and each says whether it passes the chosen min_score.
  const res = await runtime.retrieve(
    { query: input.query, topK, knowledgeBaseIds: [ctx.knowledgeId], filters: input.file_ids?.length ? { fileIds: input.file_ids } : null },
    { ownerId: ctx.userId, sessionId: ctx.sessionId, turnId: "retrieval-test", traceId: "retrieval-test", signal: ctx.signal, readableKnowledgeIds: new Set([ctx.knowledgeId]) },
    { minScore: 0 },
  );
  const b = res.diagnostics.builtin;
  const termSet = new Set(tokenize(input.query));
  const hits: RetrievalTestHit[] = res.hits.map((h, i) => {
    const quote = h.content.length > MAX_QUOTE_CHARS ? `${h.content.slice(0, MAX_QUOTE_CHARS)}…` : h.content;
    return {
      rank: i + 1,
      chunk_id: h.chunkId ?? h.id,
      file_id: h.fileId,
      file_name: h.fileName,
      page_start: h.pageStart,
      page_end: h.pageEnd,
      heading_path: h.headingPath,
      quote,
      highlights: matchedRanges(quote, termSet),
      score: h.score,
      passes_min_score: h.score >= minScore,
      scores: (h.chunkId && b?.scores[h.chunkId]) || null,
    };
  });
  const a = b?.answerability;
  const grounded = groundedVerdict(hits, a, minScore);

  const kbLangs = await documentLanguages(await getRawDb(), [ctx.knowledgeId], input.file_ids?.length ? input.file_ids : null);
  const plan = planTranslation(input.query, kbLangs);
  const { terms, ...answerability } = a ?? { terms: [] };
  return {
    query: input.query,
    top_k: topK,
    min_score: minScore,
    candidate_pool: topK * 2,
    models: { embedding: cfg.embedding?.model ?? null, rerank: cfg.rerank?.model ?? null },
    signals: { lexical: "ok", vector: b?.vector ?? "off", rerank: b?.rerank ?? "off" },
    terms,
    answerability: a ? (answerability as AnswerabilityView) : null,
    grounded,
    translation: { question_language: plan.from, document_languages: plan.documentLanguages, chat_would_translate: !!cfg.chat && plan.targets.length > 0 },
    hits,
    took_ms: Math.round(res.diagnostics.tookMs),
  };
}
