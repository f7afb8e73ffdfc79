import "server-only";
// The built-in knowledge-base provider: protocol v1 over the app's own index. The core calls
// searchKnowledgeBases directly (richer hits); this wrapper is what the registry lists first and
// what the app's provider endpoint answers with, so one instance can use another as a source.
import type { RawDb } from "@/lib/db/client";
import { BUILTIN_SOURCE_TYPE, searchKnowledgeBases, type RerankFunction } from "../kb-search";
import type { EmbeddingFunction } from "../vector";
import type { KnowledgeProvider, ProviderContext, ProviderDescription, ProviderRecord, ProviderRequest } from "./protocol";

export interface BuiltinKbProviderDeps {
  getDb: () => Promise<Pick<RawDb, "$queryRawUnsafe">>;
  /** Access targets of the caller (the provider endpoint computes them from the API token). */
  readableKnowledgeIds: (ctx: ProviderContext) => Promise<ReadonlySet<string>> | ReadonlySet<string>;
  embedding?: () => EmbeddingFunction | null;
  rerank?: () => RerankFunction | null;
}

export const BUILTIN_DESCRIPTION: ProviderDescription = {
  protocolVersion: 1,
  key: BUILTIN_SOURCE_TYPE,
  label: "Knowledge base",
  capabilities: { filters: true, scores: true, citations: false, list_documents: true },
};

export function createBuiltinKbProvider(deps: BuiltinKbProviderDeps): KnowledgeProvider {
  return {
    describe: () => BUILTIN_DESCRIPTION,
    async retrieve(request: ProviderRequest, context: ProviderContext): Promise<{ results: ProviderRecord[] }> {
      const readable = await deps.readableKnowledgeIds(context);
      const kbs = request.knowledgeBaseIds.filter((id) => readable.has(id)).slice(0, 8);
      const fileIds = Array.isArray(request.filters?.fileIds)
        ? (request.filters.fileIds as unknown[]).filter((x): x is string => typeof x === "string")
        : null;
      const topK = Math.min(8, Math.max(1, Math.floor(request.topK) || 1));
      const { hits } = await searchKnowledgeBases({
        db: await deps.getDb(),
        query: request.query,
        knowledgeIds: kbs,
        fileIds: fileIds?.length ? fileIds : null,
        topK,
        candidatePool: topK * 2,
        signal: context.signal,
        embedding: deps.embedding?.() ?? null,
        rerank: deps.rerank?.() ?? null,
      });
      return {
        results: hits.map((h) => ({
          id: h.id,
          content: h.content,
          score: h.score,
          source: {
            id: h.sourceId,
            title: h.fileName,
            locator: [
              `file=${h.fileId}`,
              h.pageStart !== null ? `page=${h.pageStart}${h.pageEnd !== null && h.pageEnd !== h.pageStart ? `-${h.pageEnd}` : ""}` : "",
              h.headingPath ? `heading=${h.headingPath}` : "",
            ]
              .filter(Boolean)
              .join(";"),
          },
          metadata: { knowledge_id: h.knowledgeId, chunk_id: h.chunkId },
        })),
      };
    },
    async health() {
      try {
        const db = await deps.getDb();
        await db.$queryRawUnsafe(`SELECT 1`);
        return { status: "ready" as const };
      } catch (e) {
        return { status: "unavailable" as const, message: (e as Error).message };
      }
    },
  };
}
