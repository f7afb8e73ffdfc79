import "server-only";
// Reading the graph: fuzzy entity search (pg_trgm), an entity's neighbourhood to depth 1–2 by
// weight, an entity's mentions and a relation's supporting passages (file, page, quote). The
// HTTP routes and the query_knowledge_graph tool are thin over these; callers pass only KB ids
// the caller may read.
import type { RawDb } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { AppError } from "@/lib/errors";
import { getModelConfig } from "@/lib/models/config";
import { splitSentences } from "./extract-offline";
import { normalizeName } from "./normalize";
import type { EntityView, GraphOverview, KnowledgeGraphStatus, Neighbourhood, PassageView, RelationDetail, RelationView } from "./wire-types";

export type { EntityDetail, EntityView, GraphOverview, KnowledgeGraphStatus, Neighbourhood, PassageView, RelationDetail, RelationView } from "./wire-types";

type Db = Pick<RawDb, "$queryRawUnsafe">;

const MAX_QUOTE = 300;

interface EntityRow {
  id: string;
  knowledge_id: string;
  name: string;
  type: string;
  aliases: string[] | string | null;
  description: string;
  mention_count: number;
  score?: number;
}

function toEntity(r: EntityRow): EntityView {
  const aliases = Array.isArray(r.aliases) ? r.aliases : typeof r.aliases === "string" ? parsePgArray(r.aliases) : [];
  const v: EntityView = { id: r.id, knowledge_id: r.knowledge_id, name: r.name, type: r.type, aliases, description: r.description, mention_count: Number(r.mention_count) };
  if (r.score !== undefined) v.score = Math.round(Number(r.score) * 1000) / 1000;
  return v;
}

function parsePgArray(s: string): string[] {
  // Drivers return text[] as an array; a text form ("{a,b}") is handled for safety.
  const inner = s.replace(/^\{|\}$/g, "");
  return inner ? inner.split(",").map((x) => x.replace(/^"|"$/g, "")) : [];
}

// Ids are BIGSERIAL in the database (migration 20261205093000) and strings on the wire: read as
// text, bound as bigint. A path id that is no decimal number names nothing (not a 500 from a cast).
const ENTITY_COLS = `e.id::text AS id, e.knowledge_id, e.name, e.type, e.aliases, e.description, e.mention_count`;
const isGraphId = (id: string) => /^[1-9][0-9]{0,17}$/.test(id);

/** Every substring of at least two characters (at most 64, an entity name's limit): the names a phrase may contain. */
function innerNames(q: string): string[] {
  const chars = [...q];
  const out = new Set<string>();
  for (let i = 0; i < chars.length; i++) for (let j = i + 2; j <= Math.min(chars.length, i + 64); j++) out.add(chars.slice(i, j).join(""));
  return [...out];
}

const likeEscape = (q: string) => q.replace(/[\\%_]/g, (c) => `\\${c}`);

// The search is the SQL function graph_search_entities (migration 20261205094000, where its arms
// and the reason it is a function are explained): three arms, each one an index answers, as a
// UNION — the query's substrings against the (knowledge_id, norm_name) key, trigram similarity
// and "contains the query" through the trigram GIN index — planned without sequential scans, since
// the planner took a scan computing similarity() for every entity (33-150 ms) for the cheaper path.
const SEARCH_SQL = `SELECT * FROM graph_search_entities($1::text[], $2::text, $3::int, $4::text, $5::text[])`;

function searchParams(args: { knowledgeIds: readonly string[]; query: string; limit: number }): unknown[] | null {
  const q = normalizeName(args.query);
  if (!q || args.knowledgeIds.length === 0) return null;
  return [[...args.knowledgeIds], q, args.limit, `%${likeEscape(q)}%`, innerNames(q)];
}

/**
 * Entities whose name matches the query: exact normalized name first, then names containing the
 * query or contained in it (a phrase that names them), then trigram similarity; ties by mentions.
 */
export async function searchEntities(db: Db, args: { knowledgeIds: readonly string[]; query: string; limit: number }): Promise<EntityView[]> {
  const params = searchParams(args);
  if (!params) return [];
  const rows = await db.$queryRawUnsafe<EntityRow[]>(SEARCH_SQL, ...params);
  return rows.map(toEntity);
}

export async function getEntity(db: Db, knowledgeIds: readonly string[], entityId: string): Promise<EntityView> {
  if (!isGraphId(entityId)) throw new AppError("ENTITY_NOT_FOUND");
  const rows = await db.$queryRawUnsafe<EntityRow[]>(`SELECT ${ENTITY_COLS} FROM graph_entities e WHERE e.id = $1::bigint AND e.knowledge_id = ANY($2::text[])`, entityId, [...knowledgeIds]);
  if (!rows[0]) throw new AppError("ENTITY_NOT_FOUND");
  return toEntity(rows[0]);
}

interface RelationRow {
  id: string;
  source_id: string;
  target_id: string;
  relation: string;
  description: string;
  support_count: number;
  weight: number;
}

// N (sentences in the KB), the pair's sentence count and both entities' mention counts give
// PMI = ln(N·c_ab / (c_a·c_b)); weighting it by c_ab keeps a pair seen once from outranking
// what the documents say again and again.
const WEIGHT = `r.support_count * ln(1 + (n.total * r.support_count)::float / greatest(1, s.mention_count::float * t.mention_count))`;

// N per KB: the sentences of its files.
const KB_SENTENCES = `n AS (SELECT knowledge_id, greatest(1, coalesce(sum(graph_sentence_count), 0)) AS total FROM knowledge_files WHERE knowledge_id = ANY($1::text[]) GROUP BY knowledge_id)`;

// The strongest relations of each group of entities in one statement: per group (a center at
// depth 1, a center's first neighbours at depth 2) two index lookups (by source, by target)
// instead of an OR over the KB's relations, weighted and cut to $4 inside the group.
const RELATIONS_OF = `
  WITH ${KB_SENTENCES},
  g AS (SELECT grp, array_agg(eid) AS eids FROM unnest($2::text[], $3::bigint[]) AS u(grp, eid) GROUP BY grp)
  SELECT g.grp, r.* FROM g CROSS JOIN LATERAL (
    SELECT r.id::text AS id, r.source_id::text AS source_id, r.target_id::text AS target_id, r.relation, r.description, r.support_count, s.name AS source_name, t.name AS target_name, ${WEIGHT} AS weight
      FROM (SELECT * FROM graph_relations WHERE source_id = ANY(g.eids)
            UNION
            SELECT * FROM graph_relations WHERE target_id = ANY(g.eids)) r
      JOIN graph_entities s ON s.id = r.source_id
      JOIN graph_entities t ON t.id = r.target_id
      JOIN n ON n.knowledge_id = r.knowledge_id
     WHERE r.knowledge_id = ANY($1::text[])
     ORDER BY weight DESC, r.id
     LIMIT $4) r
  ORDER BY g.grp, r.weight DESC, r.id`;

interface GroupRelationRow extends RelationRow {
  grp: string;
  source_name: string;
  target_name: string;
}

/** The strongest `limit` relations of each group of entities (group key → relations by weight). */
async function relationsOfGroups(db: Db, knowledgeIds: readonly string[], groups: ReadonlyMap<string, readonly string[]>, limit: number): Promise<Map<string, (RelationView & { source_name: string; target_name: string })[]>> {
  const grp: string[] = [];
  const eid: string[] = [];
  for (const [g, ids] of groups) {
    for (const id of ids) {
      grp.push(g);
      eid.push(id);
    }
  }
  const out = new Map<string, (RelationView & { source_name: string; target_name: string })[]>();
  if (grp.length === 0) return out;
  const rows = await db.$queryRawUnsafe<GroupRelationRow[]>(RELATIONS_OF, [...knowledgeIds], grp, eid, limit);
  for (const r of rows) {
    const list = out.get(r.grp) ?? [];
    list.push({ ...toRelation(r), source_name: r.source_name, target_name: r.target_name });
    out.set(r.grp, list);
  }
  return out;
}

/** Depth 2 starts from this many of a center's strongest neighbours. */
const hopCount = (limit: number) => Math.max(1, Math.ceil(limit / 4));
const otherEnd = (r: RelationView, center: string) => (r.source_id === center ? r.target_id : r.source_id);

function toRelation(r: RelationRow): RelationView {
  return { id: r.id, source_id: r.source_id, target_id: r.target_id, relation: r.relation, description: r.description, support_count: Number(r.support_count), weight: Math.round(Number(r.weight) * 1000) / 1000 };
}

/** An entity, its strongest relations and, at depth 2, its neighbours' strongest ones. */
export async function neighbourhood(db: Db, args: { knowledgeId: string; entityId: string; depth: 1 | 2; limit: number }): Promise<Neighbourhood> {
  const center = await getEntity(db, [args.knowledgeId], args.entityId);
  const relations = await expand(db, [args.knowledgeId], [center.id], args.depth, args.limit);
  const list = relations.get(center.id) ?? [];
  const ids = new Set<string>([center.id]);
  for (const r of list) ids.add(r.source_id).add(r.target_id);
  const rows = await db.$queryRawUnsafe<EntityRow[]>(`SELECT ${ENTITY_COLS} FROM graph_entities e WHERE e.id = ANY($1::bigint[]) AND e.knowledge_id = $2`, [...ids], args.knowledgeId);
  return { center, entities: rows.map(toEntity), relations: list.map(({ source_name: _s, target_name: _t, ...r }) => r) };
}

/**
 * Each center's strongest `limit` relations and, at depth 2, up to `limit` more of its first
 * neighbours' (at most 2 × limit in all): one statement per depth for all centers together.
 */
async function expand(db: Db, knowledgeIds: readonly string[], centers: readonly string[], depth: 1 | 2, limit: number) {
  const first = await relationsOfGroups(db, knowledgeIds, new Map(centers.map((c) => [c, [c]])), limit);
  if (depth === 2) {
    const hops = new Map<string, string[]>();
    for (const [c, rels] of first) if (rels.length > 0) hops.set(c, rels.slice(0, hopCount(limit)).map((r) => otherEnd(r, c)));
    const second = await relationsOfGroups(db, knowledgeIds, hops, limit);
    for (const [c, rels] of second) {
      const list = first.get(c)!;
      const seen = new Set(list.map((r) => r.id));
      for (const r of rels) {
        if (list.length >= limit * 2 || seen.has(r.id)) continue;
        list.push(r);
        seen.add(r.id);
      }
    }
  }
  return first;
}

interface PassageRow {
  chunk_id: string;
  file_id: string;
  file_name: string;
  page_start: number | null;
  page_end: number | null;
  heading_path: string;
  content: string;
  start: number;
  end: number;
  count: number;
}

/** The sentence of the chunk that holds [start, end): the quote the viewer highlights. */
function quoteOf(content: string, start: number, end: number): string {
  const s = splitSentences(content).find((x) => x.start <= start && start < x.end);
  const from = s ? s.start : start;
  const to = s ? Math.max(s.end, Math.min(end, content.length)) : end;
  const q = content.slice(from, to).trim();
  return q.length > MAX_QUOTE ? `${q.slice(0, MAX_QUOTE - 1)}…` : q;
}

function toPassage(r: PassageRow): PassageView {
  return {
    chunk_id: r.chunk_id,
    file_id: r.file_id,
    file_name: r.file_name,
    page_start: r.page_start,
    page_end: r.page_end,
    heading_path: r.heading_path,
    quote: quoteOf(r.content, Number(r.start), Number(r.end)),
  };
}

export async function entityMentions(db: Db, args: { knowledgeId: string; entityId: string; limit: number }): Promise<PassageView[]> {
  if (!isGraphId(args.entityId)) return [];
  const rows = await db.$queryRawUnsafe<PassageRow[]>(
    `SELECT m.chunk_id, c.file_id, f.name AS file_name, c.page_start, c.page_end, c.heading_path, c.content, m.start, m."end", m.count
       FROM graph_mentions m JOIN graph_entities e ON e.id = m.entity_id JOIN chunks c ON c.id = m.chunk_id JOIN knowledge_files f ON f.id = c.file_id
      WHERE m.entity_id = $1::bigint AND e.knowledge_id = $2
      ORDER BY m.count DESC, f.name, c.ordinal LIMIT $3`,
    args.entityId,
    args.knowledgeId,
    args.limit,
  );
  return rows.map(toPassage);
}

// A relation's support in a chunk is held by the mention row of one of its ends in that chunk
// (relation_ids, with [start, end, count] per relation in relation_spans; migration
// 20261207010000): the two ends' mention rows, by the mentions' entity index. The `perRelation`
// ($3) strongest supports of each relation ($1), most sentences first.
const RELATION_PASSAGES = `SELECT x.relation_id::text AS relation_id, x.chunk_id, c.file_id, f.name AS file_name, c.page_start, c.page_end, c.heading_path, c.content, x.start, x."end", x.count
       FROM (SELECT r.id AS relation_id, m.chunk_id, m.relation_spans[3 * p.i - 2] AS start, m.relation_spans[3 * p.i - 1] AS "end", m.relation_spans[3 * p.i] AS count,
                    row_number() OVER (PARTITION BY r.id ORDER BY m.relation_spans[3 * p.i] DESC, m.chunk_id) AS rn
               FROM graph_relations r
               JOIN graph_mentions m ON m.entity_id = ANY(ARRAY[r.source_id, r.target_id]) AND r.id = ANY(m.relation_ids)
               CROSS JOIN LATERAL (SELECT array_position(m.relation_ids, r.id) AS i) p
              WHERE r.id = ANY($1::bigint[]) AND r.knowledge_id = ANY($2::text[])) x
       JOIN chunks c ON c.id = x.chunk_id JOIN knowledge_files f ON f.id = c.file_id
      WHERE x.rn <= $3
      ORDER BY x.relation_id, x.rn`;

export async function relationSupports(db: Db, args: { knowledgeId: string | readonly string[]; relationIds: readonly string[]; perRelation: number }): Promise<Map<string, PassageView[]>> {
  const relationIds = args.relationIds.filter(isGraphId);
  if (relationIds.length === 0) return new Map();
  const kbs = typeof args.knowledgeId === "string" ? [args.knowledgeId] : [...args.knowledgeId];
  const rows = await db.$queryRawUnsafe<(PassageRow & { relation_id: string })[]>(
    RELATION_PASSAGES,
    relationIds,
    kbs,
    args.perRelation,
  );
  const out = new Map<string, PassageView[]>();
  for (const r of rows) {
    const list = out.get(r.relation_id) ?? [];
    list.push(toPassage(r));
    out.set(r.relation_id, list);
  }
  return out;
}

export async function relationDetail(db: Db, args: { knowledgeId: string; relationId: string; limit: number }): Promise<RelationDetail> {
  if (!isGraphId(args.relationId)) throw new AppError("RELATION_NOT_FOUND");
  const rows = await db.$queryRawUnsafe<RelationRow[]>(
    `WITH n AS (SELECT greatest(1, coalesce(sum(graph_sentence_count), 0)) AS total FROM knowledge_files WHERE knowledge_id = $2)
     SELECT r.id::text AS id, r.source_id::text AS source_id, r.target_id::text AS target_id, r.relation, r.description, r.support_count, ${WEIGHT} AS weight
       FROM graph_relations r JOIN graph_entities s ON s.id = r.source_id JOIN graph_entities t ON t.id = r.target_id CROSS JOIN n
      WHERE r.id = $1::bigint AND r.knowledge_id = $2`,
    args.relationId,
    args.knowledgeId,
  );
  if (!rows[0]) throw new AppError("RELATION_NOT_FOUND");
  const relation = toRelation(rows[0]);
  const [source, target] = await Promise.all([getEntity(db, [args.knowledgeId], relation.source_id), getEntity(db, [args.knowledgeId], relation.target_id)]);
  const passages = (await relationSupports(db, { knowledgeId: args.knowledgeId, relationIds: [relation.id], perRelation: args.limit })).get(relation.id) ?? [];
  return { relation, source, target, passages };
}

/** The graph's state for the Graph tab: first match wins, like the assistant's status (SPEC §6). */
export async function graphOverview(db: PrismaClient, knowledgeId: string): Promise<GraphOverview> {
  const kb = await db.knowledge.findUnique({ where: { id: knowledgeId }, select: { graphEnabled: true, graphModelEnabled: true } });
  if (!kb) throw new AppError("KNOWLEDGE_NOT_FOUND");
  const files = await db.knowledgeFile.findMany({
    where: { knowledgeId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true, name: true, status: true, graphStatus: true, graphPercent: true, graphTokens: true, graphErrorCode: true, graphErrorMessage: true },
  });
  const [counts] = await db.$queryRawUnsafe<{ entities: bigint | number; relations: bigint | number }[]>(
    `SELECT (SELECT count(*) FROM graph_entities WHERE knowledge_id = $1) AS entities, (SELECT count(*) FROM graph_relations WHERE knowledge_id = $1) AS relations`,
    knowledgeId,
  );
  const entityCount = Number(counts?.entities ?? 0);
  const inProgress = files.some((f) => f.graphStatus === "building" || (f.graphStatus === "pending" && f.status !== "failed"));
  const built = files.filter((f) => f.graphStatus === "success").length;
  const failed = files.filter((f) => f.graphStatus === "failed").length;
  let status: KnowledgeGraphStatus;
  if (!kb.graphEnabled) status = "disabled";
  else if (entityCount > 0 || built > 0) status = inProgress ? "building" : "ready";
  else if (inProgress) status = "building";
  else if (failed > 0) status = "failed";
  else status = "empty";
  // "building" with entities already: the tab still shows them (status says more are coming).
  return {
    enabled: kb.graphEnabled,
    model_enabled: kb.graphModelEnabled,
    model_available: getModelConfig().chat !== null,
    status,
    entity_count: entityCount,
    relation_count: Number(counts?.relations ?? 0),
    files: files.map((f) => ({
      id: f.id,
      name: f.name,
      status: f.status,
      graph_status: f.graphStatus,
      graph_percent: f.graphPercent,
      graph_tokens: f.graphTokens,
      graph_error_code: f.graphErrorCode,
      graph_error_message: f.graphErrorMessage,
    })),
  };
}

export interface GraphQueryResult {
  entities: (EntityView & {
    relations: (RelationView & { source_name: string; target_name: string; depth: 1 | 2; passages: PassageView[] })[];
  })[];
}

/**
 * What the tool answers: the best-matching entities across the given KBs, each with its
 * strongest relations (to `depth`) and their supporting passages. Four statements whatever the
 * number of matches (search, relations, depth 2's relations, passages); it was ~5 per match.
 */
export async function queryKnowledgeGraph(
  db: Db,
  args: { knowledgeIds: readonly string[]; query: string; depth: 1 | 2; maxEntities: number; maxRelations: number; passagesPerRelation: number },
): Promise<GraphQueryResult> {
  const matched = await searchEntities(db, { knowledgeIds: args.knowledgeIds, query: args.query, limit: args.maxEntities });
  if (matched.length === 0) return { entities: [] };
  const kbs = [...new Set(matched.map((e) => e.knowledge_id))];
  const relations = await expand(db, kbs, matched.map((e) => e.id), args.depth, args.maxRelations);
  const all = [...new Set([...relations.values()].flat().map((r) => r.id))];
  const supports = await relationSupports(db, { knowledgeId: kbs, relationIds: all, perRelation: args.passagesPerRelation });
  return {
    entities: matched.map((e) => ({
      ...e,
      relations: (relations.get(e.id) ?? []).map((r) => ({ ...r, depth: r.source_id === e.id || r.target_id === e.id ? 1 : 2, passages: supports.get(r.id) ?? [] })),
    })),
  };
}

/**
 * EXPLAIN ANALYZE of the statements a depth-2 tool call runs (the benchmark prints them): the
 * search function's body as it runs inside the function (sequential scans off, SET LOCAL in a
 * transaction), the relations statement of the matches, the one of their first neighbours
 * (depth 2), and the passages statement — with the tool's limits (3 entities, 8 relations, 2
 * passages each).
 */
export async function explainGraphQuery(db: PrismaClient, args: { knowledgeIds: readonly string[]; query: string }): Promise<string[]> {
  const plan = async (tx: Db, sql: string, params: unknown[]) =>
    (await tx.$queryRawUnsafe<Record<string, string>[]>(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`, ...params)).map((r) => Object.values(r)[0]).join("\n");
  const limits = { maxEntities: 3, maxRelations: 8, passagesPerRelation: 2 };
  const params = searchParams({ ...args, limit: limits.maxEntities });
  if (!params) return [];
  const [fn] = await db.$queryRawUnsafe<{ body: string }[]>(`SELECT prosrc AS body FROM pg_proc WHERE proname = 'graph_search_entities'`);
  const out = [
    await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL enable_seqscan = off`);
      return plan(tx, fn!.body.replace("ANY($1)", "ANY($1::text[])").replace("ANY($5)", "ANY($5::text[])"), params);
    }),
  ];
  const matched = await searchEntities(db, { ...args, limit: limits.maxEntities });
  if (matched.length === 0) return out;
  const ids = matched.map((e) => e.id);
  out.push(await plan(db, RELATIONS_OF, [[...args.knowledgeIds], ids, ids, limits.maxRelations]));
  const first = await relationsOfGroups(db, args.knowledgeIds, new Map(ids.map((c) => [c, [c]])), limits.maxRelations);
  const grp: string[] = [];
  const eid: string[] = [];
  for (const [c, rels] of first) {
    for (const r of rels.slice(0, hopCount(limits.maxRelations))) {
      grp.push(c);
      eid.push(otherEnd(r, c));
    }
  }
  if (grp.length > 0) out.push(await plan(db, RELATIONS_OF, [[...args.knowledgeIds], grp, eid, limits.maxRelations]));
  const all = (await expand(db, args.knowledgeIds, ids, 2, limits.maxRelations)).values();
  const relIds = [...new Set([...all].flat().map((r) => r.id))];
  if (relIds.length > 0) out.push(await plan(db, RELATION_PASSAGES, [relIds, [...args.knowledgeIds], limits.passagesPerRelation]));
  return out;
}
