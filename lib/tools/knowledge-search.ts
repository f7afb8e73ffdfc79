import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { CHAT_RERANK_MAX_CANDIDATES } from "@/lib/models/chat-rerank";
import { applyRerank } from "@/lib/retrieval/calibrate";
import { MAX_KNOWLEDGE_BASE_IDS, MAX_TOP_K } from "@/lib/retrieval/core";
import { mmrSelect } from "@/lib/retrieval/mmr";
import { getRetrievalRuntime } from "@/lib/retrieval/runtime";
import { tokenize } from "@/lib/retrieval/text/tokenize";
import type { RetrievalHit } from "@/lib/retrieval/types";
import { emptyReason, knowledgeBaseIdsField, quoteList, readyFileCounts, resolveKnowledgeIds, throwIfAborted, toolDb, toolId, toolText } from "./common";
import type { ToolDefinition } from "./types";

const input = z
  .object({
    queries: z
      .array(toolText(500, "each query"))
      .min(1, "give at least one query")
      .max(5, "at most 5 queries per call")
      .describe("1-5 natural-language questions or descriptions, each phrased differently (synonyms, sub-questions)."),
    knowledge_base_ids: knowledgeBaseIdsField,
    file_ids: z.array(toolId).max(50, "at most 50 file_ids").optional().describe("Only search these documents (ids from other tools)."),
    top_k: z.number().int().min(1, "top_k must be at least 1").max(20, "top_k must be at most 20").default(8).describe("Hits to return, 1-20."),
  })
  .strict();

const hit = z.object({
  chunk_id: z.string(),
  chunk_index: z.number().int(),
  file_id: z.string(),
  file_name: z.string(),
  knowledge_base_id: z.string(),
  page_start: z.number().int().nullable(),
  page_end: z.number().int().nullable(),
  heading_path: z.string(),
  score: z.number(),
  text: z.string(),
});
const output = z.object({
  hits: z.array(hit),
  reason: z.string().nullable(),
  /** "chat_model": scores refined by the chat model; "fallback": it failed, fused order kept. */
  rerank: z.enum(["none", "chat_model", "fallback"]),
});
export type KnowledgeSearchInput = z.infer<typeof input>;
export type KnowledgeSearchOutput = z.infer<typeof output>;

/** MMR trade-off over the merged hits of several queries (same default as the chat's search). */
const MMR_LAMBDA = 0.7;

function batches<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export const knowledgeSearchTool: ToolDefinition<KnowledgeSearchInput, KnowledgeSearchOutput> = {
  name: "knowledge_search",
  description:
    "Semantic (hybrid lexical + vector) search over the knowledge bases. Use it for questions and " +
    "concepts: pass 1-5 natural-language queries that say the same need in different words. " +
    "Returns the best passages with chunk_id, chunk_index, file, page range, heading path and score. " +
    "For exact names, numbers or terms use grep_chunks instead; to read around a hit call " +
    "list_knowledge_chunks with file_id and offset = chunk_index - 2.",
  inputSchema: input,
  outputSchema: output,
  async run(args, ctx) {
    const kbIds = resolveKnowledgeIds(args.knowledge_base_ids, ctx);
    const db = await toolDb();
    // Why a search has nothing to search (no files, none ready) is only worth a statement when
    // it found nothing: a hit comes from a ready file. Asked first only with file_ids, where
    // retrieve() refuses a file that is not ready (FILE_NOT_SEARCHABLE) before it searches, and
    // a KB with no ready file must still answer with its reason. (On PGlite every statement is
    // a round trip to the database thread, a visible share of a small KB's search.)
    const whyEmpty = async () => emptyReason(kbIds, await readyFileCounts(db, kbIds));
    if (kbIds.length === 0 || args.file_ids?.length) {
      const reason = await whyEmpty();
      if (reason) return { hits: [], reason, rerank: "none" };
    }
    const runtime = getRetrievalRuntime();
    const turnId = randomUUID();
    const rctx = { ownerId: ctx.userId, sessionId: "tool:knowledge_search", turnId, traceId: turnId, signal: ctx.signal, readableKnowledgeIds: ctx.readableKnowledgeIds };
    // A chat-model rerank needs candidates beyond top_k to choose from.
    const pool = ctx.rerank ? Math.min(MAX_TOP_K, Math.max(args.top_k * 2, 10)) : args.top_k;
    // retrieve() takes at most 8 KBs per call; every query runs over every batch.
    const calls = args.queries.flatMap((query) =>
      batches(kbIds, MAX_KNOWLEDGE_BASE_IDS).map((group) =>
        // min_score 0: the agent sees weak hits with their score and decides (the chat's own
        // min_score belongs to its grounded mode).
        runtime.retrieve({ query, topK: pool, knowledgeBaseIds: group, filters: { fileIds: args.file_ids ?? null } }, rctx, { minScore: 0 }),
      ),
    );
    const results = await Promise.all(calls);
    throwIfAborted(ctx.signal);
    const best = new Map<string, RetrievalHit>();
    for (const r of results) {
      for (const h of r.hits) {
        if (!h.chunkId) continue;
        const prev = best.get(h.chunkId);
        if (!prev || h.score > prev.score) best.set(h.chunkId, h);
      }
    }
    if (best.size === 0) {
      const reason = await whyEmpty();
      if (reason) return { hits: [], reason, rerank: "none" };
    }
    let merged = [...best.values()].sort((a, b) => b.score - a.score);
    let rerank: KnowledgeSearchOutput["rerank"] = "none";
    if (ctx.rerank && merged.length > 1) {
      // The best candidates by the fused score, scored against all the queries at once; the
      // score mixes like a rerank model's (calibrate.ts) and the order follows it.
      const candidates = merged.slice(0, CHAT_RERANK_MAX_CANDIDATES);
      const scores = await ctx.rerank(args.queries.join(" / "), candidates.map((h) => h.content), ctx.signal);
      throwIfAborted(ctx.signal);
      if (scores) {
        rerank = "chat_model";
        merged = candidates.map((h, i) => ({ ...h, score: applyRerank(h.score, scores[i]) })).sort((a, b) => b.score - a.score);
      } else rerank = "fallback";
    }
    const picked = mmrSelect(
      merged.map((h) => ({ relevance: h.score, tokens: new Set(tokenize(h.content)) })),
      args.top_k,
      MMR_LAMBDA,
    ).map((i) => merged[i]!);
    const ordinals = await chunkOrdinals(db, picked.map((h) => h.chunkId!));
    return {
      hits: picked.map((h) => ({
        chunk_id: h.chunkId!,
        chunk_index: ordinals.get(h.chunkId!) ?? 0,
        file_id: h.fileId ?? "",
        file_name: h.fileName,
        knowledge_base_id: h.knowledgeId ?? "",
        page_start: h.pageStart,
        page_end: h.pageEnd,
        heading_path: h.headingPath,
        score: Math.round(h.score * 1000) / 1000,
        text: h.content,
      })),
      reason: picked.length ? null : "No passage matched these queries; try other words or grep_chunks for exact terms.",
      rerank,
    };
  },
  summarize(out) {
    return { count: out.hits.length, summary: `${out.hits.length} hits${out.hits[0] ? ` (best: ${quoteList([out.hits[0].file_name], 1)})` : ""}` };
  },
};

async function chunkOrdinals(db: Awaited<ReturnType<typeof toolDb>>, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db.$queryRawUnsafe<{ id: string; ordinal: number }[]>(`SELECT id, ordinal FROM chunks WHERE id = ANY($1::text[])`, ids);
  return new Map(rows.map((r) => [r.id, Number(r.ordinal)]));
}
