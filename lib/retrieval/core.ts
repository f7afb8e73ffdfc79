import "server-only";
// The retrieval core (SPEC §2, §8): the one entry point the assistant, the agent tools and the
// provider endpoint call. Access is decided before anything is searched; the built-in KB search
// and every external provider run concurrently, each with its own timeout and status.
import { AppError } from "@/lib/errors";
import type { RawDb } from "@/lib/db/client";
import type { LexicalCalibration } from "./calibrate";
import { BUILTIN_SOURCE_TYPE, searchKnowledgeBases, type KbSearchDiagnostics, type RerankFunction } from "./kb-search";
import { MalformedProviderResponse, normalizeProviderResults, ProviderReportedError, type NormalizeLimits } from "./normalize";
import type { KnowledgeProvider, ProviderDescription, ProviderTarget } from "./providers/protocol";
import type { RetrievalContext, RetrievalHit, RetrievalRequest, RetrievalResult, SourceStatus, SourceSummary } from "./types";
import type { EmbeddingFunction } from "./vector";

export type { EmbeddingFunction } from "./vector";
export type { RerankFunction } from "./kb-search";

export const MAX_QUERY_CHARS = 2000;
export const MAX_TOP_K = 20;
export const MAX_KNOWLEDGE_BASE_IDS = 8;
/** Protocol v1: topK sent to a provider is 1..8. */
export const PROVIDER_MAX_TOP_K = 8;
export const DEFAULT_PROVIDER_TIMEOUT_MS = 8000;
export const DEFAULT_BUILTIN_TIMEOUT_MS = 15000;

/** An external provider to ask in this call (already validated by the registry). */
export interface ExternalSource {
  provider: KnowledgeProvider;
  description: ProviderDescription;
  /** The provider's own KB ids bound to the conversation; [] = whatever the provider exposes. */
  knowledgeBaseIds?: string[];
  /** The bound targets with every locating field (folder/document bindings narrow the search). */
  targets?: ProviderTarget[];
  filters?: Record<string, unknown>;
  timeoutMs?: number;
}

export interface RetrieveOptions {
  /** Database (tests and the benchmark pass theirs); default the app's getDb(). */
  db?: Pick<RawDb, "$queryRawUnsafe">;
  /** Hits below this calibrated score are dropped. Default 0 (keep all); the runtime passes env RETRIEVAL_MIN_SCORE. */
  minScore?: number;
  externalProviders?: ExternalSource[];
  /** Candidates gathered per signal before fusion/MMR; default 2 × topK (SPEC §5). */
  candidatePool?: number;
  embedding?: EmbeddingFunction | null;
  rerank?: RerankFunction | null;
  /** Per external provider (overridable per source). */
  timeoutMs?: number;
  builtinTimeoutMs?: number;
  maxTopK?: number;
  calibration?: LexicalCalibration;
  mmrLambda?: number;
  /** Lexical common-term cut (benchmarks); default DEFAULT_POSTINGS_CAP in lexical.ts. */
  postingsCap?: number;
  /** BM25+ δ (benchmarks); default 0 = plain BM25. */
  bm25Delta?: number;
  /** τ of the lexical answerability cap (benchmarks); default in calibrate.ts, null = off. */
  answerabilityTau?: number | null;
  normalizeLimits?: Partial<NormalizeLimits>;
}

export interface RetrievalDiagnostics {
  /** KB ids requested but not readable by the caller (dropped, never searched). */
  deniedKnowledgeIds: string[];
  builtin?: KbSearchDiagnostics;
  /** Why a source ended in error/timeout/unavailable (for logs; never shown raw to users). */
  sourceErrors: Record<string, string>;
  tookMs: number;
}

export type RetrievalResultWithDiagnostics = RetrievalResult & { diagnostics: RetrievalDiagnostics };

class TimeoutSignalError extends Error {
  constructor() {
    super("timed out");
    this.name = "TimeoutError";
  }
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

type Outcome<T> = { kind: "ok"; value: T } | { kind: "timeout" } | { kind: "error"; error: unknown };

/**
 * Runs fn with a signal that aborts on the parent's abort or after `ms`. Resolves on time even
 * if fn ignores its signal (the stray promise is left to settle on its own).
 */
export async function withTimeout<T>(fn: (signal: AbortSignal) => Promise<T>, parent: AbortSignal, ms: number): Promise<Outcome<T>> {
  if (parent.aborted) throw abortError(parent);
  const ac = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<Outcome<T>>((resolve) => {
    timer = setTimeout(() => {
      ac.abort(new TimeoutSignalError());
      resolve({ kind: "timeout" });
    }, ms);
    onAbort = () => {
      ac.abort(parent.reason);
      resolve({ kind: "error", error: abortError(parent) });
    };
    parent.addEventListener("abort", onAbort, { once: true });
  });
  const run = (async (): Promise<Outcome<T>> => {
    try {
      return { kind: "ok", value: await fn(ac.signal) };
    } catch (error) {
      if (ac.signal.reason instanceof TimeoutSignalError) return { kind: "timeout" };
      return { kind: "error", error };
    }
  })();
  try {
    return await Promise.race([run, stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) parent.removeEventListener("abort", onAbort);
  }
}

function errMessage(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

interface ValidRequest {
  query: string;
  topK: number;
  knowledgeBaseIds: string[];
  fileIds: string[] | null;
}

export function validateRequest(request: RetrievalRequest, maxTopK = MAX_TOP_K): ValidRequest {
  if (!request || typeof request !== "object") throw new AppError("INVALID_PARAMS", "Retrieval request is missing.");
  const query = typeof request.query === "string" ? request.query.trim() : "";
  if (!query) throw new AppError("MESSAGE_EMPTY");
  if (query.length > MAX_QUERY_CHARS) throw new AppError("MESSAGE_TOO_LONG");
  const k = Number(request.topK);
  if (!Number.isInteger(k) || k < 1 || k > maxTopK) throw new AppError("INVALID_PARAMS", `topK must be an integer in 1..${maxTopK}.`);
  if (!Array.isArray(request.knowledgeBaseIds) || request.knowledgeBaseIds.some((x) => typeof x !== "string")) {
    throw new AppError("INVALID_PARAMS", "knowledgeBaseIds must be an array of strings.");
  }
  const kbs = [...new Set(request.knowledgeBaseIds)];
  if (kbs.length > MAX_KNOWLEDGE_BASE_IDS) {
    throw new AppError("INVALID_PARAMS", `At most ${MAX_KNOWLEDGE_BASE_IDS} knowledge bases per request.`);
  }
  const rawFiles = request.filters?.fileIds;
  let fileIds: string[] | null = null;
  if (rawFiles !== undefined && rawFiles !== null) {
    if (!Array.isArray(rawFiles) || rawFiles.some((x) => typeof x !== "string")) {
      throw new AppError("INVALID_PARAMS", "filters.fileIds must be an array of strings.");
    }
    if (rawFiles.length > 200) throw new AppError("INVALID_PARAMS", "Too many file ids.");
    fileIds = rawFiles.length ? [...new Set(rawFiles)] : null;
  }
  return { query, topK: k, knowledgeBaseIds: kbs, fileIds };
}

/** file_ids must belong to the searched KBs (else "not in knowledge", revealing nothing) and be searchable. */
async function checkFiles(db: Pick<RawDb, "$queryRawUnsafe">, kbIds: string[], fileIds: string[]): Promise<void> {
  const rows = await db.$queryRawUnsafe<{ id: string; status: string }[]>(
    `SELECT id, status FROM knowledge_files WHERE id = ANY($1::text[]) AND knowledge_id = ANY($2::text[])`,
    fileIds,
    kbIds,
  );
  const found = new Map(rows.map((r) => [r.id, r.status]));
  for (const id of fileIds) {
    const st = found.get(id);
    if (st === undefined) throw new AppError("FILE_NOT_IN_KNOWLEDGE", undefined, { fileId: id });
    if (st !== "success") throw new AppError("FILE_NOT_SEARCHABLE", undefined, { fileId: id });
  }
}

async function defaultDb(): Promise<Pick<RawDb, "$queryRawUnsafe">> {
  const { getRawDb } = await import("@/lib/db/client");
  return getRawDb();
}

/**
 * Retrieve passages for a question. Never searches a KB outside ctx.readableKnowledgeIds.
 * Throws AppError for invalid input or file filters, and the abort reason when ctx.signal aborts;
 * provider failures only change that provider's status in `sources`.
 */
export async function retrieve(
  request: RetrievalRequest,
  ctx: RetrievalContext,
  opts: RetrieveOptions = {},
): Promise<RetrievalResultWithDiagnostics> {
  const started = performance.now();
  if (ctx.signal.aborted) throw abortError(ctx.signal);
  const req = validateRequest(request, opts.maxTopK ?? MAX_TOP_K);
  const readable = req.knowledgeBaseIds.filter((id) => ctx.readableKnowledgeIds.has(id));
  const diagnostics: RetrievalDiagnostics = {
    deniedKnowledgeIds: req.knowledgeBaseIds.filter((id) => !ctx.readableKnowledgeIds.has(id)),
    sourceErrors: {},
    tookMs: 0,
  };
  const minScore = opts.minScore ?? 0;
  const pool = Math.max(req.topK, opts.candidatePool ?? req.topK * 2);
  const db = readable.length ? (opts.db ?? (await defaultDb())) : null;
  if (db && req.fileIds) await checkFiles(db, readable, req.fileIds);

  // Built-in first (it is listed first and wins ties); externals start at the same time.
  const builtinP: Promise<{ status: SourceStatus; hits: RetrievalHit[] }> = (async () => {
    if (!db) return { status: "unavailable", hits: [] };
    const out = await withTimeout(
      (signal) =>
        searchKnowledgeBases({
          db,
          query: req.query,
          knowledgeIds: readable,
          fileIds: req.fileIds,
          topK: req.topK,
          candidatePool: pool,
          signal,
          embedding: opts.embedding,
          rerank: opts.rerank,
          calibration: opts.calibration,
          mmrLambda: opts.mmrLambda,
          postingsCap: opts.postingsCap,
          bm25Delta: opts.bm25Delta,
          answerabilityTau: opts.answerabilityTau,
        }),
      ctx.signal,
      opts.builtinTimeoutMs ?? DEFAULT_BUILTIN_TIMEOUT_MS,
    );
    if (out.kind === "timeout") {
      diagnostics.sourceErrors[BUILTIN_SOURCE_TYPE] = "timeout";
      return { status: "timeout", hits: [] };
    }
    if (out.kind === "error") {
      if (ctx.signal.aborted) throw abortError(ctx.signal);
      diagnostics.sourceErrors[BUILTIN_SOURCE_TYPE] = errMessage(out.error);
      return { status: "error", hits: [] };
    }
    diagnostics.builtin = out.value.diagnostics;
    const hits = out.value.hits.filter((h) => h.score >= minScore);
    return { status: hits.length ? "ok" : "empty", hits };
  })();

  const externalPs = (opts.externalProviders ?? []).map(async (src) => {
    const key = src.description.key;
    const out = await withTimeout(
      async (signal) =>
        src.provider.retrieve(
          {
            query: req.query,
            topK: Math.min(req.topK, PROVIDER_MAX_TOP_K),
            knowledgeBaseIds: (src.knowledgeBaseIds ?? []).slice(0, MAX_KNOWLEDGE_BASE_IDS),
            filters: src.description.capabilities.filters ? (src.filters ?? {}) : {},
            ...(src.targets?.length ? { targets: src.targets.slice(0, 20) } : {}),
          },
          { ownerId: ctx.ownerId, sessionId: ctx.sessionId, turnId: ctx.turnId, traceId: ctx.traceId, signal },
        ),
      ctx.signal,
      src.timeoutMs ?? opts.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS,
    );
    if (out.kind === "timeout") {
      diagnostics.sourceErrors[key] = "timeout";
      return { key, status: "timeout" as SourceStatus, hits: [] as RetrievalHit[] };
    }
    if (out.kind === "error") {
      if (ctx.signal.aborted) throw abortError(ctx.signal);
      diagnostics.sourceErrors[key] = errMessage(out.error);
      const unavailable = (out.error as { code?: string })?.code === "PROVIDER_UNAVAILABLE";
      return { key, status: (unavailable ? "unavailable" : "error") as SourceStatus, hits: [] as RetrievalHit[] };
    }
    try {
      const { hits } = normalizeProviderResults(out.value, src.description, {
        maxResults: Math.min(req.topK, PROVIDER_MAX_TOP_K),
        ...opts.normalizeLimits,
      });
      const kept = hits.filter((h) => h.score >= minScore);
      return { key, status: (kept.length ? "ok" : "empty") as SourceStatus, hits: kept };
    } catch (e) {
      diagnostics.sourceErrors[key] = e instanceof MalformedProviderResponse ? `malformed: ${e.message}` : errMessage(e);
      // An envelope from another instance saying it cannot serve now.
      const unavailable = e instanceof ProviderReportedError && e.code === "PROVIDER_UNAVAILABLE";
      return { key, status: (unavailable ? "unavailable" : "error") as SourceStatus, hits: [] as RetrievalHit[] };
    }
  });

  const [builtin, ...externals] = await Promise.all([builtinP, ...externalPs]);
  if (ctx.signal.aborted) throw abortError(ctx.signal);

  const sources: SourceSummary[] = [{ source_type: BUILTIN_SOURCE_TYPE, status: builtin!.status, count: builtin!.hits.length }];
  const merged: { hit: RetrievalHit; order: number }[] = builtin!.hits.map((hit, i) => ({ hit, order: i }));
  externals.forEach((e, s) => {
    sources.push({ source_type: e.key, status: e.status, count: e.hits.length });
    e.hits.forEach((hit, i) => merged.push({ hit, order: (s + 1) * 1000 + i }));
  });
  merged.sort((a, b) => b.hit.score - a.hit.score || a.order - b.order);
  const seen = new Set<string>();
  const hits: RetrievalHit[] = [];
  for (const { hit } of merged) {
    if (seen.has(hit.id)) continue;
    seen.add(hit.id);
    hits.push(hit);
    if (hits.length >= req.topK) break;
  }
  diagnostics.tookMs = performance.now() - started;
  return { hits, sources, diagnostics };
}
