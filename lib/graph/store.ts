import "server-only";
// Writes a file's graph. Entities are merged per KB by normalized name (the unique key), their
// aliases united and their counts added; mentions (which also carry the relations' supports)
// point at the file's chunks, so the chunks' deletion (reparse, file or KB delete) removes them
// and the DELETE triggers (migrations 20261204060000, 20261207010000) decrement the counts and
// remove what no chunk supports.
// Entity and relation ids are BIGSERIAL (migration 20261205093000): the writer never handles
// them; the statement joins what its upserts return.
import { runAtomic, type AtomicStatement } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { BuiltEntity, BuiltGraph, BuiltMention } from "./build";

/**
 * Mention rows plus supports per statement: a file's chunks are written in groups of about this
 * many rows, each group one statement in its own transaction. On embedded PGlite every other
 * request waits for the statement being run (a health probe) or for the transaction (a question),
 * so a group is kept to about a tenth of a second of the database thread (~20-60 µs per row on
 * this machine: a 20,000-row group ran 0.6-1.3 s while a large file's graph was written,
 * docs/bench-ingest-under-load.md, session 16). Small files (cmrc2018's) are one group each.
 */
const GROUP_ROWS = 2_000;
const TX_TIMEOUT_MS = 10 * 60_000;
/**
 * Rows (mentions, supports) sorted into groups between two turns of the event loop: the sorting
 * runs on the server's thread, and a large file's in one go (85,306 mentions for bench:ingest's
 * Markdown file) took 125-264 ms there, with every request waiting (session 21).
 */
const ROWS_PER_TURN = 4_000;

// graph_mentions (raw SQL only, not in the Prisma schema): one row per (entity, chunk) with the
// first sentence naming the entity ([start, end]) and how many do (count), plus the supports of
// the relations it holds in that chunk (relation_ids, and [start, end, count] per relation in
// relation_spans). The KB, file and surface text come from the chunk. Indexed by entity and by
// chunk, without a primary key (migration 20261213000000): one row per pair is this writer's rule.
// The graph rows a file's chunks hold: their mentions, and with them the relation supports those
// mention rows carry (the DELETE trigger of graph_mentions lowers the counts and drops what
// nothing supports any more).
export const DELETE_FILE_GRAPH_SQL = `DELETE FROM graph_mentions WHERE chunk_id IN (SELECT id FROM chunks WHERE file_id = $1)`;

// One group of a file's chunks in one statement: the entities they mention upserted (counts
// added), then the relations they support, joined to the entities' ids by what the upsert
// returned, upserted (counts added), then the mention rows, each holding the supports of the
// relations it is the holder of in its chunk (relation_ids, and [start, end, count] per relation
// in relation_spans). Every join is on what the statement itself returned: no index lookup of an
// entity or relation per row.
const WRITE_GROUP_SQL = `
WITH ent AS (
  INSERT INTO graph_entities (knowledge_id, name, norm_name, type, aliases, description, mention_count)
  SELECT $1, u.name, u.norm, u.type, ARRAY(SELECT jsonb_array_elements_text(u.aliases::jsonb)), u.description, u.n
    FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[]) AS u(norm, name, type, aliases, description, n)
  ON CONFLICT (knowledge_id, norm_name) DO UPDATE
     SET aliases = ARRAY(SELECT DISTINCT a FROM unnest(graph_entities.aliases || EXCLUDED.aliases || ARRAY[EXCLUDED.name]) AS a
                          WHERE a <> graph_entities.name ORDER BY a LIMIT 20),
         description = CASE WHEN graph_entities.description = '' THEN EXCLUDED.description ELSE graph_entities.description END,
         mention_count = graph_entities.mention_count + EXCLUDED.mention_count
  RETURNING id, norm_name
), rin AS (
  SELECT r.i, s.id AS source_id, t.id AS target_id, r.relation, r.description, r.n
    FROM unnest($8::text[], $9::text[], $10::text[], $11::text[], $12::int[]) WITH ORDINALITY AS r(src, tgt, relation, description, n, i)
    JOIN ent s ON s.norm_name = r.src
    JOIN ent t ON t.norm_name = r.tgt
), rel AS (
  INSERT INTO graph_relations (knowledge_id, source_id, target_id, relation, description, support_count)
  SELECT $1, source_id, target_id, relation, description, n FROM rin
  ON CONFLICT (source_id, target_id, relation) DO UPDATE SET support_count = graph_relations.support_count + EXCLUDED.support_count
  RETURNING id, source_id, target_id, relation
), held AS (
  SELECT s.holder, s.chunk_id,
         array_agg(rel.id ORDER BY rel.id, x.k) FILTER (WHERE x.k = 1) AS ids,
         array_agg(x.v ORDER BY rel.id, x.k) AS spans
    FROM unnest($13::int[], $14::text[], $15::text[], $16::int[], $17::int[], $18::int[]) AS s(rel, holder, chunk_id, st, en, n)
    JOIN rin ON rin.i = s.rel
    JOIN rel ON rel.source_id = rin.source_id AND rel.target_id = rin.target_id AND rel.relation = rin.relation
    CROSS JOIN LATERAL unnest(ARRAY[s.st, s.en, s.n]) WITH ORDINALITY AS x(v, k)
   GROUP BY s.holder, s.chunk_id
)
INSERT INTO graph_mentions (entity_id, chunk_id, start, "end", count, relation_ids, relation_spans)
SELECT ent.id, m.chunk_id, m.st, m.en, m.n, held.ids, held.spans
  FROM unnest($19::text[], $20::text[], $21::int[], $22::int[], $23::int[]) AS m(norm, chunk_id, st, en, n)
  JOIN ent ON ent.norm_name = m.norm
  LEFT JOIN held ON held.holder = m.norm AND held.chunk_id = m.chunk_id`;

interface HeldSupport {
  relation: number;
  holder: string;
  chunkId: string;
  start: number;
  end: number;
  count: number;
}

interface GroupRelation {
  source: string;
  target: string;
  relation: string;
  description: string;
  count: number;
}

/** One statement's rows: the entities, relations, supports and mentions of a group of chunks. */
class Group {
  /** The chunks this group writes rows for (checked to still exist before its statement). */
  readonly chunkIds: string[] = [];
  readonly entities = new Map<string, { entity: BuiltEntity; count: number }>();
  readonly relations = new Map<string, GroupRelation & { index: number }>();
  readonly supports: HeldSupport[] = [];
  readonly mentions: BuiltMention[] = [];

  statement(knowledgeId: string): AtomicStatement {
    const entities = [...this.entities.values()];
    const relations = [...this.relations.values()];
    return {
      sql: WRITE_GROUP_SQL,
      params: [
        knowledgeId,
        entities.map((e) => e.entity.norm),
        entities.map((e) => e.entity.name),
        entities.map((e) => e.entity.type),
        entities.map((e) => JSON.stringify(e.entity.aliases)),
        entities.map((e) => e.entity.description),
        entities.map((e) => e.count),
        relations.map((r) => r.source),
        relations.map((r) => r.target),
        relations.map((r) => r.relation),
        relations.map((r) => r.description),
        relations.map((r) => r.count),
        this.supports.map((s) => s.relation),
        this.supports.map((s) => s.holder),
        this.supports.map((s) => s.chunkId),
        this.supports.map((s) => s.start),
        this.supports.map((s) => s.end),
        this.supports.map((s) => s.count),
        this.mentions.map((m) => m.norm),
        this.mentions.map((m) => m.chunkId),
        this.mentions.map((m) => m.start),
        this.mentions.map((m) => m.end),
        this.mentions.map((m) => m.count),
      ],
    };
  }
}

/**
 * The file's rows split into groups of whole chunks (counts are sums over chunks, so a group's
 * counts added to the KB's are exact whatever the split). A relation's support in a chunk is held
 * by its source's mention row of that chunk (the extractor only relates names the chunk
 * mentions), the target's where the source has none; one neither end holds is not written.
 */
export async function groupRows(graph: BuiltGraph): Promise<{ groups: Group[]; entities: number; relations: number }> {
  let work = 0;
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const mentionKey = (norm: string, chunkId: string) => `${norm}\u0000${chunkId}`;
  const byChunk = new Map<string, { mentions: BuiltMention[]; supports: { r: number; s: Omit<HeldSupport, "relation"> }[] }>(graph.chunkIds.map((id) => [id, { mentions: [], supports: [] }]));
  const mentioned = new Set<string>();
  for (const m of graph.mentions) {
    if (++work % ROWS_PER_TURN === 0) await turn();
    const c = byChunk.get(m.chunkId);
    if (!c) continue;
    c.mentions.push(m);
    mentioned.add(mentionKey(m.norm, m.chunkId));
  }
  const entities = new Map(graph.entities.map((e) => [e.norm, e]));
  for (const [i, r] of graph.relations.entries()) {
    for (const s of r.supports) {
      if (++work % ROWS_PER_TURN === 0) await turn();
      const holder = mentioned.has(mentionKey(r.source, s.chunkId)) ? r.source : mentioned.has(mentionKey(r.target, s.chunkId)) ? r.target : null;
      if (holder && entities.has(r.source) && entities.has(r.target)) byChunk.get(s.chunkId)?.supports.push({ r: i, s: { holder, chunkId: s.chunkId, start: s.start, end: s.end, count: s.count } });
    }
  }

  const groups: Group[] = [];
  const writtenEntities = new Set<string>();
  const writtenRelations = new Set<number>();
  let g = new Group();
  let rows = 0;
  for (const [chunkId, c] of byChunk) {
    if (rows > 0 && rows + c.mentions.length + c.supports.length > GROUP_ROWS) {
      groups.push(g);
      g = new Group();
      rows = 0;
    }
    rows += c.mentions.length + c.supports.length;
    if (c.mentions.length || c.supports.length) g.chunkIds.push(chunkId);
    for (const m of c.mentions) {
      if (++work % ROWS_PER_TURN === 0) await turn();
      const entity = entities.get(m.norm);
      if (!entity) continue;
      g.mentions.push(m);
      const e = g.entities.get(m.norm);
      if (e) e.count += m.count;
      else g.entities.set(m.norm, { entity, count: m.count });
      writtenEntities.add(m.norm);
    }
    for (const { r, s } of c.supports) {
      if (++work % ROWS_PER_TURN === 0) await turn();
      const built = graph.relations[r]!;
      const key = `${built.source}\u0000${built.target}\u0000${built.relation}`;
      let rel = g.relations.get(key);
      if (!rel) g.relations.set(key, (rel = { source: built.source, target: built.target, relation: built.relation, description: built.description, count: 0, index: g.relations.size + 1 }));
      rel.count += s.count;
      g.supports.push({ relation: rel.index, ...s });
      writtenRelations.add(r);
    }
  }
  if (rows > 0) groups.push(g);
  return { groups, entities: writtenEntities.size, relations: writtenRelations.size };
}

/**
 * Replaces the graph of one file, as statement lists (on embedded PGlite one message to its
 * thread each, without Prisma's per-statement work; docs/bench-graph.md "Session 12"). The first
 * transaction:
 *
 * 1. The file row, locked (and its sentence count written): orders this write after a chunk
 *    replacement of the same file, which locks it too. A file that is gone writes nothing.
 * 2. An advisory lock per KB: two files of one KB written at once would otherwise lock shared
 *    entity and relation rows in the orders of their own statements.
 * 3. The chunks the graph was built from, locked FOR KEY SHARE in one statement (what per-row
 *    foreign-key checks did until migration 20261207010000): if any is gone, the file was
 *    reparsed or deleted meanwhile and nothing is written (the new chunks get their own graph
 *    stage); otherwise none can go before this commits.
 * 4. The file's previous graph removed; 5. the first group of rows written.
 *
 * Every further group is its own transaction (1-3 again, for the group's chunks): a large file's
 * graph held the one embedded connection for seconds in one transaction, and every question
 * waited for it (issue 22). Counts are sums over chunks, so the KB's counts are exact after each
 * group. While the groups are written the file's graph is partly there (its graph status says
 * `building`); a reparse or delete meanwhile removes the written part with the chunks (their
 * DELETE triggers) and the next group's check stops the write; a process stopped between two
 * groups leaves the status `building`, and recoverInterruptedGraphs removes the partial graph.
 *
 * Returns null when nothing (more) was written for those reasons.
 */
export async function writeFileGraph(db: PrismaClient, args: { knowledgeId: string; fileId: string; graph: BuiltGraph }): Promise<{ entities: number; relations: number } | null> {
  const { knowledgeId, fileId, graph } = args;
  const { groups, entities, relations } = await groupRows(graph);
  const lockKb: AtomicStatement = { sql: `SELECT pg_advisory_xact_lock(727002, hashtext($1))`, params: [knowledgeId] };
  const chunksStill = (ids: readonly string[]): AtomicStatement => ({
    sql: `SELECT n FROM (SELECT count(*) AS n FROM (SELECT id FROM chunks WHERE id = ANY($1::text[]) AND file_id = $2 FOR KEY SHARE) c) x WHERE n = $3`,
    params: [ids, fileId, ids.length],
    requireRows: true,
  });
  const [first, ...rest] = groups;
  const head: AtomicStatement[] = [
    { sql: `UPDATE knowledge_files SET graph_sentence_count = $2 WHERE id = $1 RETURNING id`, params: [fileId, graph.sentenceCount], requireRows: true },
    lockKb,
    chunksStill(graph.chunkIds),
    { sql: DELETE_FILE_GRAPH_SQL, params: [fileId] },
    ...(first ? [first.statement(knowledgeId)] : []),
  ];
  if ((await runAtomic(db, head, { timeoutMs: TX_TIMEOUT_MS })).failedAt !== null) return null;
  for (const g of rest) {
    const res = await runAtomic(
      db,
      [{ sql: `SELECT id FROM knowledge_files WHERE id = $1 FOR UPDATE`, params: [fileId], requireRows: true }, lockKb, chunksStill(g.chunkIds), g.statement(knowledgeId)],
      { timeoutMs: TX_TIMEOUT_MS },
    );
    if (res.failedAt !== null) return null;
  }
  return { entities, relations };
}
