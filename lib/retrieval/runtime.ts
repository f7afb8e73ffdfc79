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
import { randomUUID } from "node:crypto";
import { retrieve, withTimeout, type ExternalSource, type RetrieveOptions, type RetrievalResultWithDiagnostics } from "./core";
import { BUILTIN_SOURCE_TYPE } from "./kb-search";
import { documentLanguages, planTranslation, translateQuery, type QueryTranslation } from "./query-translation";
import type { TextLanguage } from "./text/language";
import type { RerankFunction } from "./kb-search";
import { createBuiltinKbProvider } from "./providers/builtin-kb";
import { createHttpProvider } from "./providers/http-provider";
import { createMcpProvider } from "./providers/mcp-provider";
import { AppError } from "@/lib/errors";
import { MalformedProviderResponse, normalizeListing } from "./normalize";
import {
  ProviderValidationError,
  type KnowledgeProvider,
  type ListingPage,
  type ListingRequest,
  type ProviderContext,
  type ProviderDescription,
  type ProviderHealth,
  type ProviderTarget,
} from "./providers/protocol";
import { ProviderRegistry } from "./providers/registry";
import type { RetrievalContext, RetrievalRequest } from "./types";
import type { EmbeddingFunction } from "./vector";

const commonProviderFields = {
  key: z.string(),
  label: z.string().min(1),
  url: z.string(),
  /** Name of the environment variable that holds the bearer token (the secret stays in env). */
  tokenEnv: z.string().optional(),
  timeoutMs: z.number().int().min(100).max(120000).optional(),
};
const externalProviderSchema = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("http"),
      ...commonProviderFields,
      listUrl: z.string().optional(),
      healthUrl: z.string().optional(),
      openUrl: z.string().optional(),
      capabilities: z.object({ filters: z.boolean(), scores: z.boolean(), citations: z.boolean() }).partial().optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal("mcp"),
      ...commonProviderFields,
      tool: z.string().min(1).max(128),
      listTool: z.string().min(1).max(128).optional(),
      capabilities: z.object({ scores: z.boolean(), citations: z.boolean() }).partial().optional(),
    })
    .strict(),
]);
export type ExternalProviderConfig = z.infer<typeof externalProviderSchema>;

/** A conversation's binding of an external source (SPEC §8 external_knowledge_refs), as retrieval needs it. */
export interface ExternalRefBinding extends Omit<ProviderTarget, "id"> {
  provider: string;
  mode: "explicit" | "all_accessible";
  id: string | null;
}

/** A binding as the provider validates it (the fields of seed 002). */
export interface BindingToValidate {
  provider: string;
  mode: "explicit" | "all_accessible";
  id?: string | null;
  name: string;
  scope: string;
  target_type: "knowledge_base" | "folder" | "document";
  node_id?: string | null;
  document_id?: string | null;
  parent_id?: string | null;
  target_name: string;
}

export interface ProviderStatus {
  key: string;
  label: string;
  builtin: boolean;
  capabilities: ProviderDescription["capabilities"];
  /** Whether a source of this provider can be opened (resolveSource): the UI registers an opener. */
  openable: boolean;
  health: ProviderHealth;
  checked_at: string;
}

export interface CallerContext {
  ownerId: string;
  /** The caller's readable KBs (built-in listing only). */
  readableKnowledgeIds?: ReadonlySet<string>;
  signal?: AbortSignal;
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
  /** Every configured provider with label, capabilities and health (no URLs, no secrets). */
  status(opts?: { refresh?: boolean }): Promise<ProviderStatus[]>;
  /** One page of one provider's listing (pagination_scope per_provider), normalized. */
  listDocuments(key: string, request: ListingRequest, ctx: CallerContext): Promise<ListingPage>;
  /** Seed 002: the provider validates and resolves a ref before it is bound. */
  validateBinding<T extends BindingToValidate>(ref: T, ctx: CallerContext): Promise<T>;
  /** Resolves a source to a URL at open time; null when the provider has nothing to open. */
  resolveSource(key: string, sourceId: string, ctx: CallerContext): Promise<string | null>;
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

/**
 * Resolves bindings to the sources to ask, one call per provider. Every locating field reaches
 * the provider (request.targets), so a folder or document binding narrows the search to it. An
 * `all_accessible` binding of a provider asks it for everything (no ids, no targets). A binding
 * whose provider is no longer configured is reported as that source `unavailable`, never hidden.
 */
export function externalSourcesFor(registry: ProviderRegistry, refs: ExternalRefBinding[] | undefined): ExternalSource[] {
  const byKey = new Map<string, ExternalSource & { all: boolean }>();
  for (const ref of refs ?? []) {
    const entry = registry.get(ref.provider);
    if (entry?.builtin) continue;
    const src =
      byKey.get(ref.provider) ??
      (entry
        ? { provider: entry.provider, description: entry.description, knowledgeBaseIds: [], targets: [], all: false }
        : { provider: missingProvider(ref.provider), description: missingDescription(ref.provider), knowledgeBaseIds: [], targets: [], all: false });
    byKey.set(ref.provider, src);
    if (ref.mode === "all_accessible" || !ref.id) {
      src.all = true;
      continue;
    }
    if (!src.knowledgeBaseIds!.includes(ref.id)) src.knowledgeBaseIds!.push(ref.id);
    src.targets!.push({
      id: ref.id,
      target_type: ref.target_type,
      node_id: ref.node_id ?? null,
      document_id: ref.document_id ?? null,
      parent_id: ref.parent_id ?? null,
    });
  }
  return [...byKey.values()].map(({ all, ...src }) => (all ? { ...src, knowledgeBaseIds: [], targets: [] } : src));
}

function missingDescription(key: string) {
  return { protocolVersion: 1 as const, key, label: key, capabilities: { filters: false, scores: false, citations: false, list_documents: false } };
}

/** Stands in for a bound provider that is not configured (any more): its source reports unavailable. */
function missingProvider(key: string): KnowledgeProvider {
  return {
    describe: () => missingDescription(key),
    retrieve: async () => {
      throw Object.assign(new Error(`provider "${key}" is not configured`), { code: "PROVIDER_UNAVAILABLE" });
    },
  };
}

/** Builds one adapter from its configuration entry (start-up only). */
export function createConfiguredProvider(
  cfg: ExternalProviderConfig,
  env: { PROVIDER_TIMEOUT_MS: number; ALLOW_LOOPBACK_PROVIDERS: boolean },
  readEnv: (name: string) => string | undefined = (n) => process.env[n],
): KnowledgeProvider {
  const token = cfg.tokenEnv ? readEnv(cfg.tokenEnv) : undefined;
  if (cfg.tokenEnv && !token) throw new ProviderValidationError(`provider "${cfg.key}": environment variable ${cfg.tokenEnv} is not set`);
  const common = {
    key: cfg.key,
    label: cfg.label,
    url: cfg.url,
    token,
    timeoutMs: cfg.timeoutMs ?? env.PROVIDER_TIMEOUT_MS,
    allowLoopback: env.ALLOW_LOOPBACK_PROVIDERS,
  };
  if (cfg.type === "mcp") {
    return createMcpProvider({ ...common, tool: cfg.tool, listTool: cfg.listTool, citations: cfg.capabilities?.citations, scores: cfg.capabilities?.scores });
  }
  return createHttpProvider({ ...common, capabilities: cfg.capabilities, listUrl: cfg.listUrl, healthUrl: cfg.healthUrl, openUrl: cfg.openUrl });
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
  for (const cfg of parseExternalProviders(env.EXTERNAL_PROVIDERS)) registry.register(createConfiguredProvider(cfg, env));
  const timeoutMs = env.PROVIDER_TIMEOUT_MS;
  const health = new Map<string, { status: ProviderHealth; at: number }>();
  const HEALTH_TTL_MS = 30_000;
  const checkHealth = async (key: string): Promise<{ status: ProviderHealth; at: number }> => {
    const entry = registry.get(key)!;
    const at = Date.now();
    let status: ProviderHealth = "ready";
    if (entry.provider.health) {
      const out = await withTimeout((signal) => entry.provider.health!({ signal }), new AbortController().signal, timeoutMs).catch(() => null);
      status = out?.kind === "ok" ? out.value.status : "unavailable";
      // The reason goes to the operator's log only (it may name internal hosts).
      if (out?.kind === "ok" && out.value.status !== "ready" && out.value.message) console.warn(`[providers] ${key}: ${out.value.status}: ${out.value.message}`);
    }
    const h = { status, at };
    health.set(key, h);
    return h;
  };
  const providerCtx = (ctx: CallerContext, signal: AbortSignal): ProviderContext & { readableKnowledgeIds?: ReadonlySet<string> } => {
    const id = randomUUID();
    return { ownerId: ctx.ownerId, sessionId: "", turnId: id, traceId: id, signal, readableKnowledgeIds: ctx.readableKnowledgeIds };
  };
  const listDocuments = async (key: string, request: ListingRequest, ctx: CallerContext): Promise<ListingPage> => {
    const entry = registry.get(key);
    if (!entry) throw new AppError("PROVIDER_NOT_FOUND");
    if (!entry.description.capabilities.list_documents || !entry.provider.listDocuments) throw new AppError("LISTING_UNSUPPORTED");
    const out = await withTimeout(
      (signal) => entry.provider.listDocuments!(request, providerCtx(ctx, signal)),
      ctx.signal ?? new AbortController().signal,
      timeoutMs,
    );
    if (out.kind !== "ok") {
      if (out.kind === "error") console.warn(`[providers] ${key}: listing failed: ${(out.error as Error)?.message ?? out.error}`);
      throw new AppError("PROVIDER_UNAVAILABLE");
    }
    try {
      return normalizeListing(out.value, request.limit);
    } catch (e) {
      console.warn(`[providers] ${key}: listing ${e instanceof MalformedProviderResponse ? "malformed" : "failed"}: ${(e as Error).message}`);
      throw new AppError("PROVIDER_UNAVAILABLE");
    }
  };
  /** Finds one item by id in a listing, paging at most MAX_PAGES × 100 items. */
  const findInListing = async (key: string, sourceId: string | null, parentId: string | null, match: (id: string, nodeId: string | null) => boolean, ctx: CallerContext) => {
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const res = await listDocuments(key, { sourceId, parentId, cursor, limit: 100 }, ctx);
      const hit = res.items.find((i) => match(i.id, i.node_id));
      if (hit) return hit;
      if (!res.next_cursor) return null;
      cursor = res.next_cursor;
    }
    return null;
  };
  return {
    registry,
    async status(opts = {}) {
      const entries = registry.list();
      await Promise.all(
        entries.map((e) => {
          const h = health.get(e.description.key);
          return opts.refresh || !h || Date.now() - h.at > HEALTH_TTL_MS ? checkHealth(e.description.key) : h;
        }),
      );
      return entries.map((e) => ({
        key: e.description.key,
        label: e.description.label,
        builtin: e.builtin,
        capabilities: e.description.capabilities,
        openable: !e.builtin && typeof e.provider.resolveSource === "function",
        health: health.get(e.description.key)!.status,
        checked_at: new Date(health.get(e.description.key)!.at).toISOString(),
      }));
    },
    listDocuments,
    async validateBinding(ref, ctx) {
      const entry = registry.get(ref.provider);
      if (!entry || entry.builtin) throw new AppError("PROVIDER_NOT_FOUND", `No external provider "${ref.provider}" is configured.`);
      // A provider without a listing cannot be asked what exists: the binding is kept as given
      // and a wrong id shows as an empty source in a turn (docs/external-sources.md).
      if (ref.mode === "all_accessible" || !entry.description.capabilities.list_documents) return ref;
      const source = await findInListing(ref.provider, null, null, (id) => id === ref.id, ctx);
      if (!source) throw new AppError("EXTERNAL_SOURCE_NOT_FOUND", "The provider does not know this source, or you may not read it.");
      const resolved = { ...ref, name: source.name };
      if (ref.target_type === "knowledge_base") return resolved;
      const want = ref.target_type === "document" ? ref.document_id : ref.node_id;
      const target = await findInListing(
        ref.provider,
        ref.id!,
        ref.parent_id ?? null,
        (id, nodeId) => id === want || (ref.target_type === "folder" && nodeId === want),
        ctx,
      );
      if (!target) throw new AppError("EXTERNAL_SOURCE_NOT_FOUND", "The provider does not know this folder or document, or you may not read it.");
      return { ...resolved, target_name: target.name };
    },
    async resolveSource(key, sourceId, ctx) {
      const entry = registry.get(key);
      if (!entry || entry.builtin) throw new AppError("PROVIDER_NOT_FOUND");
      if (!entry.provider.resolveSource) return null;
      const out = await withTimeout(
        (signal) => entry.provider.resolveSource!(sourceId, providerCtx(ctx, signal)),
        ctx.signal ?? new AbortController().signal,
        timeoutMs,
      );
      if (out.kind !== "ok") throw new AppError("PROVIDER_UNAVAILABLE");
      // What a provider resolves to is opened by a person's browser: http(s) without credentials only.
      const url = out.value;
      if (typeof url !== "string") return null;
      try {
        const u = new URL(url);
        return (u.protocol === "http:" || u.protocol === "https:") && !u.username && !u.password ? u.href : null;
      } catch {
        return null;
      }
    },
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

/** Closes every provider once; safe to call more than once. The next use builds a new runtime (tests change the env). */
export async function closeRetrievalRuntime(): Promise<void> {
  const rt = g.__kaRetrieval;
  g.__kaRetrieval = undefined;
  if (rt) await rt.close();
}
