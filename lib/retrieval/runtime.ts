import "server-only";
// Composition root of retrieval (seed 000 "one composition root"): builds the provider registry
// once from the environment — the built-in KB provider first, then EXTERNAL_PROVIDERS — and
// closes the providers once at shutdown (lib/server/boot.ts calls closeRetrievalRuntime).
import { z } from "zod";
import { getRawDb } from "@/lib/db/client";
import { getEnv } from "@/lib/env";
import { getModelConfig, type ModelConfig } from "@/lib/models/config";
import { embedTexts } from "@/lib/models/embeddings";
import { rerank as callRerank } from "@/lib/models/rerank";
import { retrieve, type ExternalSource, type RetrieveOptions, type RetrievalResultWithDiagnostics } from "./core";
import { BUILTIN_SOURCE_TYPE } from "./kb-search";
import { documentLanguages, planTranslation, translateQuery, type QueryTranslation } from "./query-translation";
import type { TextLanguage } from "./text/language";
import type { RerankFunction } from "./kb-search";
import { createBuiltinKbProvider } from "./providers/builtin-kb";
import { createHttpProvider } from "./providers/http-provider";
import { ProviderValidationError, type ProviderContext } from "./providers/protocol";
import { ProviderRegistry } from "./providers/registry";
import type { RetrievalContext, RetrievalRequest } from "./types";
import type { EmbeddingFunction } from "./vector";

const externalProviderSchema = z.object({
  type: z.literal("http"),
  key: z.string(),
  label: z.string().min(1),
  url: z.string(),
  /** Name of the environment variable that holds the bearer token (the secret stays in env). */
  tokenEnv: z.string().optional(),
  timeoutMs: z.number().int().min(100).max(120000).optional(),
  capabilities: z
    .object({ filters: z.boolean(), scores: z.boolean(), citations: z.boolean(), list_documents: z.boolean() })
    .partial()
    .optional(),
});
export type ExternalProviderConfig = z.infer<typeof externalProviderSchema>;

/** A conversation's binding of an external source (SPEC §8 external_knowledge_refs). */
export interface ExternalRefBinding {
  provider: string;
  mode: "explicit" | "all_accessible";
  id: string;
}

/** What happened to a cross-language question (query-translation.ts); "off" = no translation was needed or possible. */
export interface TranslationSummary {
  status: "off" | "ok" | "error";
  from: TextLanguage | null;
  documentLanguages: TextLanguage[];
  queries: QueryTranslation[];
  /** Why a translation failed (logs only). */
  error?: string;
}

export interface RuntimeRetrieveOptions extends Omit<RetrieveOptions, "externalProviders"> {
  externalRefs?: ExternalRefBinding[];
  /** Translate a question whose language no searched file shares (needs a chat model; default false). */
  translate?: boolean;
}

export type RuntimeRetrievalResult = RetrievalResultWithDiagnostics & { translation: TranslationSummary };

export interface RetrievalRuntime {
  registry: ProviderRegistry;
  /** retrieve() with the app database, env min_score and provider timeout, and the bound external sources. */
  retrieve(request: RetrievalRequest, ctx: RetrievalContext, opts?: RuntimeRetrieveOptions): Promise<RuntimeRetrievalResult>;
  close(): Promise<void>;
}

export function parseExternalProviders(json: string | undefined): ExternalProviderConfig[] {
  if (!json || !json.trim()) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    throw new ProviderValidationError(`EXTERNAL_PROVIDERS is not valid JSON: ${(e as Error).message}`);
  }
  const parsed = z.array(externalProviderSchema).safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  EXTERNAL_PROVIDERS[${i.path.join(".")}]: ${i.message}`);
    throw new ProviderValidationError(`EXTERNAL_PROVIDERS is invalid:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

/** Resolves bindings to the sources to ask; unknown provider keys are ignored (the binding outlived its provider). */
export function externalSourcesFor(registry: ProviderRegistry, refs: ExternalRefBinding[] | undefined): ExternalSource[] {
  const byKey = new Map<string, ExternalSource>();
  for (const ref of refs ?? []) {
    const entry = registry.get(ref.provider);
    if (!entry || entry.builtin) continue;
    const src = byKey.get(ref.provider) ?? { provider: entry.provider, description: entry.description, knowledgeBaseIds: [] };
    if (ref.mode === "explicit" && ref.id && !src.knowledgeBaseIds!.includes(ref.id)) src.knowledgeBaseIds!.push(ref.id);
    byKey.set(ref.provider, src);
  }
  return [...byKey.values()];
}

/**
 * Model calls made during retrieval are bounded well below the built-in source's timeout
 * (DEFAULT_BUILTIN_TIMEOUT_MS), so a slow embedding or rerank endpoint costs its own signal
 * (vector "error" / rerank skipped) and the lexical hits still arrive.
 */
export const RETRIEVAL_MODEL_TIMEOUT_MS = 8000;

/**
 * The configured models as the functions the search pipeline takes: the query is embedded with
 * the same model name the ingestion runner stores on the vectors (vectors of another model are
 * never compared, see vector.ts); rerank scores come back in document order. Either is null when
 * its model is not configured. A rerank failure (RerankUnavailableError, a bad response) only
 * skips rerank for that call: searchKnowledgeBases catches it and reports `rerank: "error"`.
 */
export function modelFunctions(cfg: ModelConfig = getModelConfig()): { embedding: EmbeddingFunction | null; rerank: RerankFunction | null } {
  const e = cfg.embedding;
  const r = cfg.rerank;
  const embedding: EmbeddingFunction | null = e
    ? {
        model: e.model,
        async embedQuery(text, signal) {
          const [v] = await embedTexts({
            baseUrl: e.baseUrl,
            apiKey: e.apiKey,
            model: e.model,
            dimensions: e.dimensions,
            inputs: [text],
            signal,
            timeoutMs: Math.min(e.timeoutMs, RETRIEVAL_MODEL_TIMEOUT_MS),
          });
          return v!;
        },
      }
    : null;
  const rerank: RerankFunction | null = r
    ? async (query, documents, signal) => {
        const results = await callRerank({
          baseUrl: r.baseUrl,
          apiKey: r.apiKey,
          model: r.model,
          query,
          documents,
          signal,
          timeoutMs: Math.min(r.timeoutMs, RETRIEVAL_MODEL_TIMEOUT_MS),
        });
        // A document the endpoint did not score keeps its fused score (applyRerank ignores NaN).
        const scores = new Array<number>(documents.length).fill(Number.NaN);
        for (const x of results) scores[x.index] = x.relevance_score;
        return scores;
      }
    : null;
  return { embedding, rerank };
}

export function buildRetrievalRuntime(): RetrievalRuntime {
  const env = getEnv();
  const registry = new ProviderRegistry(
    createBuiltinKbProvider({
      getDb: getRawDb,
      // The provider endpoint passes the caller's access targets through the context.
      readableKnowledgeIds: (ctx: ProviderContext) =>
        (ctx as ProviderContext & { readableKnowledgeIds?: ReadonlySet<string> }).readableKnowledgeIds ?? new Set<string>(),
    }),
  );
  for (const cfg of parseExternalProviders(env.EXTERNAL_PROVIDERS)) {
    const token = cfg.tokenEnv ? process.env[cfg.tokenEnv] : undefined;
    if (cfg.tokenEnv && !token) throw new ProviderValidationError(`provider "${cfg.key}": environment variable ${cfg.tokenEnv} is not set`);
    registry.register(
      createHttpProvider({
        key: cfg.key,
        label: cfg.label,
        url: cfg.url,
        token,
        capabilities: cfg.capabilities,
        timeoutMs: cfg.timeoutMs ?? env.PROVIDER_TIMEOUT_MS,
        allowLoopback: env.ALLOW_LOOPBACK_PROVIDERS,
      }),
    );
  }
  return {
    registry,
    async retrieve(request, ctx, opts = {}) {
      const { externalRefs, translate, ...rest } = opts;
      // Read per call (cheap), so the functions always follow the current model configuration.
      const cfg = getModelConfig();
      const models = modelFunctions(cfg);
      const base: RetrieveOptions = {
        minScore: env.RETRIEVAL_MIN_SCORE,
        timeoutMs: env.PROVIDER_TIMEOUT_MS,
        embedding: models.embedding,
        rerank: models.rerank,
        ...rest,
        db: rest.db ?? (await getRawDb()),
      };
      const off: TranslationSummary = { status: "off", from: null, documentLanguages: [], queries: [] };
      const original = () => retrieve(request, ctx, { ...base, externalProviders: externalSourcesFor(registry, externalRefs) });
      const kbIds = Array.isArray(request?.knowledgeBaseIds) ? request.knowledgeBaseIds.filter((id) => ctx.readableKnowledgeIds.has(id)) : [];
      if (!translate || !cfg.chat || !kbIds.length || typeof request.query !== "string") return { ...(await original()), translation: off };
      const fileIds = Array.isArray(request.filters?.fileIds) && request.filters.fileIds.length ? request.filters.fileIds : null;
      const plan = planTranslation(request.query, await documentLanguages(base.db!, kbIds, fileIds));
      const summary: TranslationSummary = { status: "off", from: plan.from, documentLanguages: plan.documentLanguages, queries: [] };
      if (!plan.targets.length) return { ...(await original()), translation: summary };
      const chat = cfg.chat;
      // The original question runs meanwhile (names and IDs match in any language).
      const [first, translated] = await Promise.all([
        original(),
        Promise.all(plan.targets.map(async (language) => ({ language, query: await translateQuery(chat, request.query, language, ctx.signal) }))).then(
          (qs) => ({ ok: true as const, qs }),
          (e: unknown) => {
            if (ctx.signal.aborted) throw e;
            return { ok: false as const, error: e instanceof Error ? e.message : String(e) };
          },
        ),
      ]);
      if (!translated.ok) return { ...first, translation: { ...summary, status: "error", error: translated.error } };
      const queries = translated.qs.filter((q) => q.query);
      const others = await Promise.all(queries.map((q) => retrieve({ ...request, query: q.query }, ctx, { ...base, externalProviders: [] })));
      return { ...mergeResults(first, others, request.topK), translation: { ...summary, status: "ok", queries } };
    },
    close: () => registry.close(),
  };
}

/**
 * The original question's result with the built-in hits of its translations: every hit keeps its
 * best score (one chunk found in two languages is one hit), best first, top_k kept; external
 * sources were asked once, with the original question.
 */
export function mergeResults(first: RetrievalResultWithDiagnostics, others: RetrievalResultWithDiagnostics[], topK: number): RetrievalResultWithDiagnostics {
  const best = new Map<string, RetrievalResultWithDiagnostics["hits"][number]>();
  for (const h of [first, ...others].flatMap((r) => r.hits)) {
    const prior = best.get(h.id);
    if (!prior || h.score > prior.score) best.set(h.id, h);
  }
  const hits = [...best.values()].sort((a, b) => b.score - a.score).slice(0, topK);
  const builtinCount = hits.filter((h) => h.sourceType === BUILTIN_SOURCE_TYPE).length;
  const sources = first.sources.map((s) => {
    if (s.source_type !== BUILTIN_SOURCE_TYPE) return { ...s, count: hits.filter((h) => h.sourceType === s.source_type).length };
    const okSomewhere = [first, ...others].some((r) => r.sources.some((x) => x.source_type === BUILTIN_SOURCE_TYPE && x.status === "ok"));
    return { ...s, status: builtinCount ? ("ok" as const) : okSomewhere ? ("empty" as const) : s.status, count: builtinCount };
  });
  const scores = Object.assign({}, ...[...others].reverse().map((r) => r.diagnostics.builtin?.scores ?? {}), first.diagnostics.builtin?.scores ?? {});
  return {
    hits,
    sources,
    diagnostics: { ...first.diagnostics, builtin: first.diagnostics.builtin && { ...first.diagnostics.builtin, scores } },
  };
}

const g = globalThis as unknown as { __kaRetrieval?: RetrievalRuntime };

/** The process-wide runtime, built on first use (boot calls it so bad providers fail the start). */
export function getRetrievalRuntime(): RetrievalRuntime {
  g.__kaRetrieval ??= buildRetrievalRuntime();
  return g.__kaRetrieval;
}

/** Closes every provider once; safe to call more than once. */
export async function closeRetrievalRuntime(): Promise<void> {
  const rt = g.__kaRetrieval;
  if (rt) await rt.close();
}
