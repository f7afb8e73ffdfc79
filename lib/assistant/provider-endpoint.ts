import "server-only";
import { randomUUID } from "node:crypto";
import { accessTargets } from "@/lib/auth/access";
import type { Principal } from "@/lib/auth/session";
import { MAX_KNOWLEDGE_BASE_IDS } from "@/lib/retrieval/core";
import { BUILTIN_SOURCE_TYPE } from "@/lib/retrieval/kb-search";
import type { ListingRequest, ProviderTarget } from "@/lib/retrieval/providers/protocol";
import { getRetrievalRuntime } from "@/lib/retrieval/runtime";
import type { RetrievalHit, RetrievalResult } from "@/lib/retrieval/types";

export const PROVIDER_DESCRIPTION = {
  protocolVersion: 1,
  key: "knowledge-assistant",
  label: "Knowledge Assistant",
  capabilities: { filters: true, scores: true, citations: false, list_documents: true },
} as const;

export interface ProviderEndpointRequest {
  query: string;
  topK: number;
  knowledgeBaseIds: string[];
  filters?: { fileIds?: string[] | null } | null;
  targets?: ProviderTarget[];
}

/**
 * Which searches a request stands for. No ids: every KB the caller may read (an `all_accessible`
 * binding; at most MAX_KNOWLEDGE_BASE_IDS, most recently updated first — documented). Document
 * targets narrow their KB to those files; a KB also bound whole is searched whole.
 */
async function plan(req: ProviderEndpointRequest, readable: Set<string>, recent: () => Promise<string[]>) {
  const kbIds = req.knowledgeBaseIds.length ? req.knowledgeBaseIds : await recent();
  const whole = new Set<string>();
  const docs = new Map<string, string[]>();
  const targets = req.targets ?? [];
  for (const id of kbIds) if (!targets.some((t) => t.id === id)) whole.add(id);
  for (const t of targets) {
    if (!kbIds.includes(t.id)) continue;
    if (t.target_type === "document" && t.document_id) docs.set(t.id, [...(docs.get(t.id) ?? []), t.document_id]);
    else whole.add(t.id); // This app has no folders: a folder target of it means the whole KB.
  }
  for (const id of whole) docs.delete(id);
  const searches: { knowledgeBaseIds: string[]; fileIds: string[] | null }[] = [];
  const explicitFiles = req.filters?.fileIds?.length ? req.filters.fileIds : null;
  if (whole.size) searches.push({ knowledgeBaseIds: [...whole].filter((id) => readable.has(id)), fileIds: explicitFiles });
  if (docs.size) searches.push({ knowledgeBaseIds: [...docs.keys()].filter((id) => readable.has(id)), fileIds: [...docs.values()].flat() });
  return searches.filter((s) => s.knowledgeBaseIds.length > 0);
}

/**
 * This app as a retrieval provider (SPEC §8): answers the standard request with the caller's
 * own access targets, through the same retrieval core the assistant uses. Records carry ids
 * and locators, not URLs: another instance cites them as plain sources.
 */
export async function answerProviderRequest(principal: Principal, request: ProviderEndpointRequest, signal: AbortSignal) {
  const turnId = randomUUID();
  const readable = await accessTargets(principal);
  const ctx = { ownerId: principal.user.id, sessionId: principal.sessionId, turnId, traceId: turnId, signal, readableKnowledgeIds: readable };
  const runtime = getRetrievalRuntime();
  const searches = await plan(request, readable, async () => {
    const page = await runtime.listDocuments(BUILTIN_SOURCE_TYPE, { sourceId: null, parentId: null, cursor: null, limit: 100 }, { ownerId: ctx.ownerId, readableKnowledgeIds: readable });
    return page.items.map((i) => i.id).slice(0, MAX_KNOWLEDGE_BASE_IDS);
  });
  const results: RetrievalResult[] = await Promise.all(
    searches.map((s) =>
      runtime.retrieve({ query: request.query, topK: request.topK, knowledgeBaseIds: s.knowledgeBaseIds, filters: s.fileIds ? { fileIds: s.fileIds } : null }, ctx),
    ),
  );
  const hits: RetrievalHit[] = results
    .flatMap((r) => r.hits)
    .sort((a, b) => b.score - a.score)
    .slice(0, request.topK);
  return {
    protocolVersion: 1,
    sources: results.flatMap((r) => r.sources),
    results: hits.map((h) => ({
      id: h.chunkId ?? h.id,
      content: h.content,
      score: h.score,
      source: {
        id: h.fileId ?? h.sourceId,
        title: h.fileName,
        locator: h.pageStart == null ? h.headingPath : `page ${h.pageStart}${h.pageEnd && h.pageEnd !== h.pageStart ? `-${h.pageEnd}` : ""}`,
      },
      metadata: {
        knowledge_id: h.knowledgeId,
        file_id: h.fileId,
        heading_path: h.headingPath,
        page_start: h.pageStart,
        page_end: h.pageEnd,
      },
    })),
  };
}

/** The documented listing request of this app as a provider: KBs (no source_id) or a KB's files. */
export async function answerListingRequest(principal: Principal, request: ListingRequest, signal: AbortSignal) {
  const readable = await accessTargets(principal);
  const page = await getRetrievalRuntime().listDocuments(BUILTIN_SOURCE_TYPE, request, { ownerId: principal.user.id, readableKnowledgeIds: readable, signal });
  return { ...page, pagination_scope: "per_provider" as const };
}
