import "server-only";
// The assistant's knowledge entry (seed 002: one list): the provider status for the UI, one
// provider's listing page, the aggregated listing over the built-in KB and the sources bound to
// a conversation, and resolving an external source at open time.
import { readableKnowledgeIds } from "@/lib/auth/access";
import type { Db } from "@/lib/db/client";
import { AppError, isAppError } from "@/lib/errors";
import { BUILTIN_SOURCE_TYPE } from "@/lib/retrieval/kb-search";
import type { ListingItem } from "@/lib/retrieval/providers/protocol";
import { getRetrievalRuntime } from "@/lib/retrieval/runtime";
import { listExternalRefs } from "./external-refs";

export async function providerStatuses(refresh: boolean) {
  return { items: await getRetrievalRuntime().status({ refresh }) };
}

export interface ListingQuery {
  source_id: string | null;
  parent_id: string | null;
  cursor: string | null;
  limit: number;
}

/** One provider's own page (pagination_scope per_provider); the built-in KB lists the caller's KBs and files. */
export async function listProviderDocuments(userId: string, provider: string, q: ListingQuery, signal: AbortSignal) {
  const runtime = getRetrievalRuntime();
  const readable = provider === BUILTIN_SOURCE_TYPE ? await readableKnowledgeIds(userId) : undefined;
  const page = await runtime.listDocuments(provider, { sourceId: q.source_id, parentId: q.parent_id, cursor: q.cursor, limit: q.limit }, { ownerId: userId, readableKnowledgeIds: readable, signal });
  return { provider, ...page, pagination_scope: "per_provider" as const };
}

interface SourcePage {
  source_type: string;
  source_id: string | null;
  name: string;
  /** ok: items is this source's first page; unsupported: no listing capability; error: it failed (its own notice). */
  status: "ok" | "unsupported" | "error";
  error_code: string | null;
  items: ListingItem[];
  next_cursor: string | null;
}

/**
 * The aggregated listing (pagination_scope per_source): the built-in KB's first page and each
 * bound external source's first page, side by side. Each page is its source's own; the next page
 * of one source comes from that provider's endpoint with its cursor, never from a merged window.
 */
export async function listConversationSources(db: Db, userId: string, kbId: string, conversationId: string | null, limit: number, signal: AbortSignal) {
  const runtime = getRetrievalRuntime();
  const readable = new Set([kbId]);
  const refs = conversationId ? await listExternalRefs(db, conversationId) : [];
  const builtin = runtime.listDocuments(BUILTIN_SOURCE_TYPE, { sourceId: kbId, parentId: null, cursor: null, limit }, { ownerId: userId, readableKnowledgeIds: readable, signal });
  const seen = new Set<string>();
  const wanted = refs.filter((r) => r.mode === "explicit" && r.id && !seen.has(`${r.provider}\u001f${r.id}`) && seen.add(`${r.provider}\u001f${r.id}`));
  const pages = await Promise.all([
    builtin.then(
      (p): SourcePage => ({ source_type: BUILTIN_SOURCE_TYPE, source_id: kbId, name: "", status: "ok", error_code: null, ...p }),
    ),
    ...wanted.map(async (r): Promise<SourcePage> => {
      const base = { source_type: r.provider, source_id: r.id, name: r.name, items: [], next_cursor: null };
      const entry = runtime.registry.get(r.provider);
      if (!entry?.description.capabilities.list_documents) return { ...base, status: entry ? "unsupported" : "error", error_code: entry ? null : "PROVIDER_NOT_FOUND" };
      try {
        const p = await runtime.listDocuments(r.provider, { sourceId: r.id, parentId: null, cursor: null, limit }, { ownerId: userId, signal });
        return { ...base, status: "ok", error_code: null, ...p };
      } catch (e) {
        // One failing provider is a notice on its own entry; the rest of the list still loads.
        return { ...base, status: "error", error_code: isAppError(e) ? e.code : "INTERNAL_ERROR" };
      }
    }),
  ]);
  return { pagination_scope: "per_source" as const, sources: pages };
}

/** Opening a past external reference: the provider resolves its source at open time. */
export async function openExternalSource(userId: string, provider: string, sourceId: string, signal: AbortSignal) {
  const url = await getRetrievalRuntime().resolveSource(provider, sourceId, { ownerId: userId, signal });
  if (url === null) throw new AppError("EXTERNAL_SOURCE_NOT_FOUND", "This source cannot be opened; it is shown as text.");
  return { url };
}
