import "server-only";
// Writes a file's graph. Entities are merged per KB by normalized name (the unique key), their
// aliases united; mentions and relation supports point at the file's chunks, so the chunks'
// deletion (reparse, file or KB delete) removes them and the triggers of migration
// 20261204060000 remove what no chunk supports any more.
import { randomUUID } from "node:crypto";
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
 * Replaces the graph of one file in one transaction. Chunks that are gone (a reparse raced this
 * write) are skipped by the joins on `chunks`, so nothing points at a missing chunk.
 */
export async function writeFileGraph(db: PrismaClient, args: { knowledgeId: string; fileId: string; graph: BuiltGraph }): Promise<{ entities: number; relations: number }> {
  const { knowledgeId, fileId, graph } = args;
  return db.$transaction(
    async (tx) => {
      // The file row lock orders this write after a concurrent chunk replacement of the same file.
      await tx.$queryRawUnsafe(`SELECT id FROM knowledge_files WHERE id = $1 FOR UPDATE`, fileId);
      await deleteFileGraph(tx, fileId);
      const ids = new Map<string, string>();
      for (const part of batches(graph.entities)) {
        const rows = await tx.$queryRawUnsafe<{ id: string; norm_name: string }[]>(
          `INSERT INTO graph_entities (id, knowledge_id, name, norm_name, type, aliases, description)
           SELECT u.id, $1, u.name, u.norm, u.type, ARRAY(SELECT jsonb_array_elements_text(u.aliases::jsonb)), u.description
             FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS u(id, name, norm, type, aliases, description)
           ON CONFLICT (knowledge_id, norm_name) DO UPDATE
              SET aliases = ARRAY(SELECT DISTINCT a FROM unnest(graph_entities.aliases || EXCLUDED.aliases || ARRAY[EXCLUDED.name]) AS a
                                   WHERE a <> graph_entities.name ORDER BY a LIMIT 20),
                  description = CASE WHEN graph_entities.description = '' THEN EXCLUDED.description ELSE graph_entities.description END
           RETURNING id, norm_name`,
          knowledgeId,
          part.map(() => randomUUID()),
          part.map((e) => e.name),
          part.map((e) => e.norm),
          part.map((e) => e.type),
          part.map((e) => JSON.stringify(e.aliases)),
          part.map((e) => e.description),
        );
        for (const r of rows) ids.set(r.norm_name, r.id);
      }
      for (const part of batches(graph.mentions.filter((m) => ids.has(m.norm)))) {
        await tx.$executeRawUnsafe(
          `INSERT INTO graph_mentions (entity_id, chunk_id, knowledge_id, file_id, surface, start, "end", count)
           SELECT u.entity_id, u.chunk_id, $1, $2, u.surface, u.s, u.e, u.n
             FROM unnest($3::text[], $4::text[], $5::text[], $6::int[], $7::int[], $8::int[]) AS u(entity_id, chunk_id, surface, s, e, n)
             JOIN chunks c ON c.id = u.chunk_id AND c.file_id = $2`,
          knowledgeId,
          fileId,
          part.map((m) => ids.get(m.norm)!),
          part.map((m) => m.chunkId),
          part.map((m) => m.surface.slice(0, 200)),
          part.map((m) => m.start),
          part.map((m) => m.end),
          part.map((m) => m.count),
        );
      }
      const rels = graph.relations.filter((r) => ids.has(r.source) && ids.has(r.target));
      const relIds = new Map<string, string>();
      const relKey = (s: string, t: string, rel: string) => `${s}\u0000${t}\u0000${rel}`;
      for (const part of batches(rels)) {
        await tx.$executeRawUnsafe(
          `INSERT INTO graph_relations (id, knowledge_id, source_id, target_id, relation, description)
           SELECT u.id, $1, u.s, u.t, u.rel, u.d FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u(id, s, t, rel, d)
           ON CONFLICT (source_id, target_id, relation) DO NOTHING`,
          knowledgeId,
          part.map(() => randomUUID()),
          part.map((r) => ids.get(r.source)!),
          part.map((r) => ids.get(r.target)!),
          part.map((r) => r.relation),
          part.map((r) => r.description),
        );
        const found = await tx.$queryRawUnsafe<{ id: string; source_id: string; target_id: string; relation: string }[]>(
          `SELECT r.id, r.source_id, r.target_id, r.relation FROM graph_relations r
             JOIN unnest($1::text[], $2::text[], $3::text[]) AS u(s, t, rel) ON r.source_id = u.s AND r.target_id = u.t AND r.relation = u.rel`,
          part.map((r) => ids.get(r.source)!),
          part.map((r) => ids.get(r.target)!),
          part.map((r) => r.relation),
        );
        for (const f of found) relIds.set(relKey(f.source_id, f.target_id, f.relation), f.id);
      }
      const supports = rels.flatMap((r) => {
        const id = relIds.get(relKey(ids.get(r.source)!, ids.get(r.target)!, r.relation));
        return id ? r.supports.map((s) => ({ id, ...s })) : [];
      });
      for (const part of batches(supports)) {
        await tx.$executeRawUnsafe(
          `INSERT INTO graph_relation_supports (relation_id, chunk_id, file_id, start, "end", count)
           SELECT u.rid, u.chunk_id, $1, u.s, u.e, u.n
             FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::int[]) AS u(rid, chunk_id, s, e, n)
             JOIN chunks c ON c.id = u.chunk_id AND c.file_id = $1`,
          fileId,
          part.map((s) => s.id),
          part.map((s) => s.chunkId),
          part.map((s) => s.start),
          part.map((s) => s.end),
          part.map((s) => s.count),
        );
      }
      // An entity or relation inserted above that no surviving chunk supports (its chunk was
      // replaced meanwhile) would otherwise stay with a zero count.
      await tx.$executeRawUnsafe(`DELETE FROM graph_relations WHERE knowledge_id = $1 AND support_count <= 0`, knowledgeId);
      await tx.$executeRawUnsafe(`DELETE FROM graph_entities WHERE knowledge_id = $1 AND mention_count <= 0`, knowledgeId);
      await tx.$executeRawUnsafe(`UPDATE knowledge_files SET graph_sentence_count = $2 WHERE id = $1`, fileId, graph.sentenceCount);
      return { entities: ids.size, relations: relIds.size };
    },
    { timeout: 10 * 60_000, maxWait: 60_000 },
  );
}
