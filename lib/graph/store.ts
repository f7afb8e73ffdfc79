import "server-only";
// Writes a file's graph. Entities are merged per KB by normalized name (the unique key), their
// aliases united and their counts added; mentions and relation supports point at the file's
// chunks, so the chunks' deletion (reparse, file or KB delete) removes them and the DELETE
// triggers of migration 20261204060000 decrement the counts and remove what no chunk supports.
// Entity and relation ids are BIGSERIAL (migration 20261205093000): handled here as their decimal
// strings, the form the API sends.
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { BuiltGraph } from "./build";

type Tx = Pick<PrismaClient, "$executeRawUnsafe" | "$queryRawUnsafe">;

const BATCH = 2000;

function batches<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += BATCH) out.push(rows.slice(i, i + BATCH));
  return out;
}

/** Removes the graph rows a file's chunks hold (the triggers drop what is left unsupported). */
export async function deleteFileGraph(tx: Tx, fileId: string): Promise<void> {
  await tx.$executeRawUnsafe(`DELETE FROM graph_relation_supports WHERE chunk_id IN (SELECT id FROM chunks WHERE file_id = $1)`, fileId);
  await tx.$executeRawUnsafe(`DELETE FROM graph_mentions WHERE chunk_id IN (SELECT id FROM chunks WHERE file_id = $1)`, fileId);
}

/**
 * Replaces the graph of one file in one transaction. The counts are the file's own, added to the
 * KB's by the upserts (no trigger updates every row a second time), so the rows written are
 * exactly the ones counted: chunks that are gone (a reparse replaced them before this write took
 * the file's lock) are dropped first. Entities and relations go in key order, so two files of one
 * KB written at once lock shared rows in the same order.
 */
export async function writeFileGraph(db: PrismaClient, args: { knowledgeId: string; fileId: string; graph: BuiltGraph }): Promise<{ entities: number; relations: number }> {
  const { knowledgeId, fileId, graph } = args;
  return db.$transaction(
    async (tx) => {
      // The file row lock orders this write after a concurrent chunk replacement of the same file.
      await tx.$queryRawUnsafe(`SELECT id FROM knowledge_files WHERE id = $1 FOR UPDATE`, fileId);
      await deleteFileGraph(tx, fileId);
      const live = new Set((await tx.$queryRawUnsafe<{ id: string }[]>(`SELECT id FROM chunks WHERE file_id = $1`, fileId)).map((r) => r.id));
      const mentions = graph.mentions.filter((m) => live.has(m.chunkId));
      const mentionCounts = new Map<string, number>();
      for (const m of mentions) mentionCounts.set(m.norm, (mentionCounts.get(m.norm) ?? 0) + m.count);
      const entities = graph.entities.filter((e) => mentionCounts.has(e.norm)).sort((a, b) => (a.norm < b.norm ? -1 : a.norm > b.norm ? 1 : 0));

      const ids = new Map<string, string>();
      for (const part of batches(entities)) {
        const rows = await tx.$queryRawUnsafe<{ id: string; norm_name: string }[]>(
          `INSERT INTO graph_entities (knowledge_id, name, norm_name, type, aliases, description, mention_count)
           SELECT $1, u.name, u.norm, u.type, ARRAY(SELECT jsonb_array_elements_text(u.aliases::jsonb)), u.description, u.n
             FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[]) AS u(name, norm, type, aliases, description, n)
           ON CONFLICT (knowledge_id, norm_name) DO UPDATE
              SET aliases = ARRAY(SELECT DISTINCT a FROM unnest(graph_entities.aliases || EXCLUDED.aliases || ARRAY[EXCLUDED.name]) AS a
                                   WHERE a <> graph_entities.name ORDER BY a LIMIT 20),
                  description = CASE WHEN graph_entities.description = '' THEN EXCLUDED.description ELSE graph_entities.description END,
                  mention_count = graph_entities.mention_count + EXCLUDED.mention_count
           RETURNING id::text AS id, norm_name`,
          knowledgeId,
          part.map((e) => e.name),
          part.map((e) => e.norm),
          part.map((e) => e.type),
          part.map((e) => JSON.stringify(e.aliases)),
          part.map((e) => e.description),
          part.map((e) => mentionCounts.get(e.norm)!),
        );
        for (const r of rows) ids.set(r.norm_name, r.id);
      }
      for (const part of batches(mentions.filter((m) => ids.has(m.norm)))) {
        await tx.$executeRawUnsafe(
          `INSERT INTO graph_mentions (entity_id, chunk_id, start, "end", count)
           SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::int[], $5::int[])`,
          part.map((m) => ids.get(m.norm)!),
          part.map((m) => m.chunkId),
          part.map((m) => m.start),
          part.map((m) => m.end),
          part.map((m) => m.count),
        );
      }

      const relKey = (s: string, t: string, rel: string) => `${s}\u0000${t}\u0000${rel}`;
      const rels = graph.relations
        .filter((r) => ids.has(r.source) && ids.has(r.target))
        .map((r) => {
          const supports = r.supports.filter((s) => live.has(s.chunkId));
          return { s: ids.get(r.source)!, t: ids.get(r.target)!, relation: r.relation, description: r.description, supports, n: supports.reduce((n, x) => n + x.count, 0) };
        })
        .filter((r) => r.n > 0)
        .sort((a, b) => { const x = relKey(a.s, a.t, a.relation), y = relKey(b.s, b.t, b.relation); return x < y ? -1 : x > y ? 1 : 0; });
      const relIds = new Map<string, string>();
      for (const part of batches(rels)) {
        const rows = await tx.$queryRawUnsafe<{ id: string; source_id: string; target_id: string; relation: string }[]>(
          `INSERT INTO graph_relations (knowledge_id, source_id, target_id, relation, description, support_count)
           SELECT $1, u.s, u.t, u.rel, u.d, u.n FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::int[]) AS u(s, t, rel, d, n)
           ON CONFLICT (source_id, target_id, relation) DO UPDATE SET support_count = graph_relations.support_count + EXCLUDED.support_count
           RETURNING id::text AS id, source_id::text AS source_id, target_id::text AS target_id, relation`,
          knowledgeId,
          part.map((r) => r.s),
          part.map((r) => r.t),
          part.map((r) => r.relation),
          part.map((r) => r.description),
          part.map((r) => r.n),
        );
        for (const f of rows) relIds.set(relKey(f.source_id, f.target_id, f.relation), f.id);
      }
      const supports = rels.flatMap((r) => r.supports.map((s) => ({ id: relIds.get(relKey(r.s, r.t, r.relation))!, ...s })));
      for (const part of batches(supports)) {
        await tx.$executeRawUnsafe(
          `INSERT INTO graph_relation_supports (relation_id, chunk_id, start, "end", count)
           SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::int[], $5::int[])`,
          part.map((s) => s.id),
          part.map((s) => s.chunkId),
          part.map((s) => s.start),
          part.map((s) => s.end),
          part.map((s) => s.count),
        );
      }
      await tx.$executeRawUnsafe(`UPDATE knowledge_files SET graph_sentence_count = $2 WHERE id = $1`, fileId, graph.sentenceCount);
      return { entities: ids.size, relations: relIds.size };
    },
    { timeout: 10 * 60_000, maxWait: 60_000 },
  );
}
