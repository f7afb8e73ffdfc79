import "server-only";
// The built-in knowledge-base source in the registry: its description, its health and its
// document listing (capability list_documents). Its search is not a provider call: the core
// runs searchKnowledgeBases itself (pages, headings and chunk ids a protocol record cannot
// carry), and this app's provider endpoint answers other instances through that same core.
import type { RawDb } from "@/lib/db/client";
import { BUILTIN_SOURCE_TYPE } from "../kb-search";
import type { BuiltinSource, ListingItem, ListingPage, ListingRequest, ProviderContext, ProviderDescription } from "./protocol";

export interface BuiltinKbProviderDeps {
  getDb: () => Promise<Pick<RawDb, "$queryRawUnsafe">>;
  /** Access targets of the caller (the session's or the API token's user). */
  readableKnowledgeIds: (ctx: ProviderContext) => Promise<ReadonlySet<string>> | ReadonlySet<string>;
}

export const BUILTIN_DESCRIPTION: ProviderDescription = {
  protocolVersion: 1,
  key: BUILTIN_SOURCE_TYPE,
  label: "Knowledge base",
  capabilities: { filters: true, scores: true, citations: false, list_documents: true },
};

/** Offset cursors ("o:<n>"): the listing is ordered by (name, id), so pages do not overlap. */
function offsetOf(cursor: string | null): number {
  const m = cursor ? /^o:(\d{1,9})$/.exec(cursor) : null;
  return m ? Number(m[1]) : 0;
}

export async function listBuiltinDocuments(
  db: Pick<RawDb, "$queryRawUnsafe">,
  readable: ReadonlySet<string>,
  request: ListingRequest,
): Promise<ListingPage> {
  const offset = offsetOf(request.cursor);
  const limit = Math.min(100, Math.max(1, request.limit));
  let items: ListingItem[];
  if (request.sourceId === null) {
    const rows = await db.$queryRawUnsafe<{ id: string; name: string; file_count: number }[]>(
      `SELECT k.id, k.name, (SELECT count(*)::int FROM knowledge_files f WHERE f.knowledge_id = k.id) AS file_count
         FROM knowledges k WHERE k.id = ANY($1::text[]) ORDER BY k.name, k.id OFFSET $2 LIMIT $3`,
      [...readable],
      offset,
      limit + 1,
    );
    items = rows.map((r) => ({ id: r.id, name: r.name, type: "knowledge_base", source_id: r.id, parent_id: null, node_id: null, metadata: { file_count: r.file_count } }));
  } else {
    // A KB the caller may not read lists like an empty one (foreign ids look missing).
    if (!readable.has(request.sourceId) || request.parentId !== null) return { items: [], next_cursor: null };
    const rows = await db.$queryRawUnsafe<{ id: string; name: string; status: string; file_type: string }[]>(
      `SELECT id, name, status, file_type FROM knowledge_files
         WHERE knowledge_id = $1 ORDER BY name, id OFFSET $2 LIMIT $3`,
      request.sourceId,
      offset,
      limit + 1,
    );
    items = rows.map((r) => ({
      id: r.id,
      name: r.name,
      type: "document",
      source_id: request.sourceId!,
      parent_id: null,
      node_id: null,
      metadata: { status: r.status, file_type: r.file_type },
    }));
  }
  const more = items.length > limit;
  return { items: items.slice(0, limit), next_cursor: more ? `o:${offset + limit}` : null };
}

export function createBuiltinKbProvider(deps: BuiltinKbProviderDeps): BuiltinSource {
  return {
    describe: () => BUILTIN_DESCRIPTION,
    async listDocuments(request: ListingRequest, context: ProviderContext) {
      return listBuiltinDocuments(await deps.getDb(), await deps.readableKnowledgeIds(context), request);
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
