import "server-only";
import { randomUUID } from "node:crypto";
import { accessTargets } from "@/lib/auth/access";
import type { Principal } from "@/lib/auth/session";
import { getRetrievalRuntime } from "@/lib/retrieval/runtime";
import type { RetrievalRequest } from "@/lib/retrieval/types";

export const PROVIDER_DESCRIPTION = {
  protocolVersion: 1,
  key: "knowledge-assistant",
  label: "Knowledge Assistant",
  capabilities: { filters: true, scores: true, citations: false, list_documents: false },
} as const;

/**
 * This app as a retrieval provider (SPEC §8): answers the standard request with the caller's
 * own access targets, through the same retrieval core the assistant uses. Records carry ids
 * and locators, not URLs: another instance cites them as plain sources.
 */
export async function answerProviderRequest(principal: Principal, request: RetrievalRequest, signal: AbortSignal) {
  const turnId = randomUUID();
  const result = await getRetrievalRuntime().retrieve(request, {
    ownerId: principal.user.id,
    sessionId: principal.sessionId,
    turnId,
    traceId: turnId,
    signal,
    readableKnowledgeIds: await accessTargets(principal),
  });
  return {
    protocolVersion: 1,
    sources: result.sources,
    results: result.hits.map((h) => ({
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
