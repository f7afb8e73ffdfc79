import "server-only";
// pgvector cosine search. Only chunks embedded with the same model (and dimension) as the query
// are compared: vectors of different models are never mixed.
import type { RawDb } from "@/lib/db/client";
import { vectorLiteral } from "./index-writer";

export interface EmbeddingFunction {
  model: string;
  embedQuery(text: string, signal: AbortSignal): Promise<number[]>;
}

export interface VectorQuery {
  knowledgeIds: string[];
  fileIds?: string[] | null;
  vector: number[];
  model: string;
  limit: number;
  fileStatus?: string | null;
}

export interface VectorHit {
  chunkId: string;
  cosine: number;
}

export async function vectorSearch(db: Pick<RawDb, "$queryRawUnsafe">, q: VectorQuery): Promise<VectorHit[]> {
  if (!q.knowledgeIds.length || !q.vector.length) return [];
  const params: unknown[] = [q.knowledgeIds, vectorLiteral(q.vector), q.model, q.vector.length, Math.max(1, q.limit)];
  let filter = "";
  if (q.fileIds) {
    params.push(q.fileIds);
    filter += ` AND c.file_id = ANY($${params.length}::text[])`;
  }
  const status = q.fileStatus === undefined ? "success" : q.fileStatus;
  if (status !== null) {
    params.push(status);
    filter += ` AND c.file_id IN (SELECT f.id FROM knowledge_files f WHERE f.knowledge_id = ANY($1::text[]) AND f.status = $${params.length})`;
  }
  const rows = await db.$queryRawUnsafe<{ id: string; cos: number }[]>(
    `SELECT c.id, (1 - (c.embedding <=> $2::vector))::float8 AS cos
     FROM chunks c
     WHERE c.knowledge_id = ANY($1::text[]) AND c.embedding IS NOT NULL AND c.embedding_model = $3
       AND vector_dims(c.embedding) = $4${filter}
     ORDER BY c.embedding <=> $2::vector, c.id
     LIMIT $5`,
    ...params,
  );
  return rows.map((r) => ({ chunkId: r.id, cosine: Number(r.cos) }));
}

/** KBs among `knowledgeIds` whose vectors were made with another model (they need re-indexing). */
export async function knowledgesNeedingReindex(
  db: Pick<RawDb, "$queryRawUnsafe">,
  knowledgeIds: string[],
  model: string,
): Promise<string[]> {
  if (!knowledgeIds.length) return [];
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `SELECT k.id FROM knowledges k
     WHERE k.id = ANY($1::text[])
       AND ((k.embedding_model IS NOT NULL AND k.embedding_model <> $2)
            OR EXISTS (SELECT 1 FROM chunks c WHERE c.knowledge_id = k.id AND c.embedding IS NOT NULL
                       AND c.embedding_model IS DISTINCT FROM $2))`,
    knowledgeIds,
    model,
  );
  return rows.map((r) => r.id);
}
