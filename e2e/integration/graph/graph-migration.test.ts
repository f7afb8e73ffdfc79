import { readdirSync, rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, migrationsDir, type SqlRunner } from "@/lib/db/migrate";
import { relationSupports } from "@/lib/graph/query";
import { migrationsUpTo, openMigrationRunner } from "../../support/migration-db";

// Migration 20261205093000 (integer graph ids) carries a graph written with the text ids before
// it: on PGlite, or on the PostgreSQL server of TEST_DATABASE_URL.
const INTEGER_IDS = "20261205093000_graph_integer_ids";
const SUPPORTS_IN_MENTIONS = "20261207010000_graph_supports_in_mentions";

describe("migration to integer graph ids", () => {
  let db: SqlRunner;
  let close: () => Promise<void>;
  let before: string;
  let through: string;

  beforeAll(async () => {
    ({ db, close } = await openMigrationRunner());
    // The migrations before this one, as a database deployed before it has them.
    before = migrationsUpTo((n) => n < INTEGER_IDS);
    through = migrationsUpTo((n) => n <= INTEGER_IDS);
    await applyMigrations(db, before);
    await db.exec(`
      INSERT INTO users (id, email, name) VALUES ('u1', 'u1@x.test', 'U');
      INSERT INTO knowledges (id, owner_id, name) VALUES ('kb1', 'u1', 'KB');
      INSERT INTO knowledge_files (id, knowledge_id, name, file_type, mime_type, size, sha256, storage_key, graph_sentence_count)
        VALUES ('f1', 'kb1', 'a.txt', 'txt', 'text/plain', 10, 'x', 'k', 4);
      INSERT INTO chunks (id, knowledge_id, file_id, ordinal, content) VALUES
        ('c1', 'kb1', 'f1', 0, '云笺支持私有化部署。云笺在新加坡。'), ('c2', 'kb1', 'f1', 1, '新加坡节点。私有化部署。');
      INSERT INTO graph_entities (id, knowledge_id, name, norm_name, type, aliases, mention_count) VALUES
        ('0b7c6a9e-aaaa-4aaa-8aaa-000000000001', 'kb1', '云笺', '云笺', 'product', ARRAY['Yunjian'], 2),
        ('0b7c6a9e-aaaa-4aaa-8aaa-000000000002', 'kb1', '私有化部署', '私有化部署', 'other', ARRAY[]::text[], 2),
        ('0b7c6a9e-aaaa-4aaa-8aaa-000000000003', 'kb1', '新加坡', '新加坡', 'place', ARRAY[]::text[], 2);
      INSERT INTO graph_mentions (entity_id, chunk_id, start, "end", count) VALUES
        ('0b7c6a9e-aaaa-4aaa-8aaa-000000000001', 'c1', 0, 2, 2),
        ('0b7c6a9e-aaaa-4aaa-8aaa-000000000002', 'c1', 4, 9, 1), ('0b7c6a9e-aaaa-4aaa-8aaa-000000000002', 'c2', 6, 11, 1),
        ('0b7c6a9e-aaaa-4aaa-8aaa-000000000003', 'c1', 13, 16, 1), ('0b7c6a9e-aaaa-4aaa-8aaa-000000000003', 'c2', 0, 3, 1);
      INSERT INTO graph_relations (id, knowledge_id, source_id, target_id, relation, support_count) VALUES
        ('9f-r1', 'kb1', '0b7c6a9e-aaaa-4aaa-8aaa-000000000001', '0b7c6a9e-aaaa-4aaa-8aaa-000000000002', 'co_occurs', 1),
        ('9f-r2', 'kb1', '0b7c6a9e-aaaa-4aaa-8aaa-000000000001', '0b7c6a9e-aaaa-4aaa-8aaa-000000000003', 'co_occurs', 1),
        ('9f-r3', 'kb1', '0b7c6a9e-aaaa-4aaa-8aaa-000000000003', '0b7c6a9e-aaaa-4aaa-8aaa-000000000002', '位于', 1);
      INSERT INTO graph_relation_supports (relation_id, chunk_id, start, "end", count) VALUES
        ('9f-r1', 'c1', 0, 10, 1), ('9f-r2', 'c1', 10, 17, 1), ('9f-r3', 'c2', 0, 12, 1);
    `);
    // This migration alone (later ones change the layout again; tested below).
    expect(await applyMigrations(db, through)).toEqual([INTEGER_IDS]);
  });
  afterAll(async () => {
    await close();
    for (const dir of [before, through]) rmSync(dir, { recursive: true, force: true });
  });

  it("keeps every entity, mention, relation and support, now under integer ids", async () => {
    const types = await db.query<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
        WHERE column_name IN ('id', 'entity_id', 'source_id', 'target_id', 'relation_id') AND table_name LIKE 'graph\\_%' ORDER BY 1, 2`,
    );
    expect(types.map((t) => `${t.table_name}.${t.column_name} ${t.data_type}`)).toEqual([
      "graph_entities.id bigint",
      "graph_mentions.entity_id bigint",
      "graph_relation_supports.relation_id bigint",
      "graph_relations.id bigint",
      "graph_relations.source_id bigint",
      "graph_relations.target_id bigint",
    ]);
    const entities = await db.query<{ name: string; aliases: string[]; mention_count: number }>(`SELECT name, aliases, mention_count FROM graph_entities ORDER BY name`);
    expect(entities).toEqual([
      { name: "云笺", aliases: ["Yunjian"], mention_count: 2 },
      { name: "新加坡", aliases: [], mention_count: 2 },
      { name: "私有化部署", aliases: [], mention_count: 2 },
    ]);
    const mentions = await db.query<{ m: string }>(`SELECT e.name || '@' || m.chunk_id || ':' || m.start || '-' || m."end" || 'x' || m.count AS m FROM graph_mentions m JOIN graph_entities e ON e.id = m.entity_id ORDER BY 1`);
    expect(mentions.map((r) => r.m)).toEqual(["云笺@c1:0-2x2", "新加坡@c1:13-16x1", "新加坡@c2:0-3x1", "私有化部署@c1:4-9x1", "私有化部署@c2:6-11x1"]);
    const relations = await db.query<{ r: string }>(
      `SELECT s.name || ' ' || r.relation || ' ' || t.name || ' ' || r.support_count || ' @' || string_agg(x.chunk_id || ':' || x.start || '-' || x."end", ',') AS r
         FROM graph_relations r JOIN graph_entities s ON s.id = r.source_id JOIN graph_entities t ON t.id = r.target_id JOIN graph_relation_supports x ON x.relation_id = r.id
        GROUP BY r.id, s.name, t.name ORDER BY 1`,
    );
    expect(relations.map((r) => r.r)).toEqual(["云笺 co_occurs 新加坡 1 @c1:10-17", "云笺 co_occurs 私有化部署 1 @c1:0-10", "新加坡 位于 私有化部署 1 @c2:0-12"]);
  });

  it("numbers new rows after the carried ones, and chunk deletion still removes what nothing supports", async () => {
    const [max] = await db.query<{ e: string; r: string }>(`SELECT max(id)::text AS e, (SELECT max(id)::text FROM graph_relations) AS r FROM graph_entities`);
    const [added] = await db.query<{ id: string }>(`INSERT INTO graph_entities (knowledge_id, name, norm_name, type) VALUES ('kb1', '东南亚', '东南亚', 'place') RETURNING id::text AS id`);
    expect(BigInt(added!.id)).toBe(BigInt(max!.e) + 1n);
    const [rel] = await db.query<{ id: string }>(
      `INSERT INTO graph_relations (knowledge_id, source_id, target_id, relation) SELECT 'kb1', min(id), max(id), 'co_occurs' FROM graph_entities RETURNING id::text AS id`,
    );
    expect(BigInt(rel!.id)).toBe(BigInt(max!.r) + 1n);
    await db.query(`DELETE FROM graph_relations WHERE id = $1::bigint`, [rel!.id]);
    await db.query(`DELETE FROM graph_entities WHERE id = $1::bigint`, [added!.id]);

    // c2 goes (a reparse or file delete does this): its mentions and supports with it, and the
    // DELETE triggers drop the relation only c2 supported and decrement the counts.
    await db.query(`DELETE FROM chunks WHERE id = 'c2'`);
    expect(await db.query(`SELECT name, mention_count FROM graph_entities ORDER BY name`)).toEqual([
      { name: "云笺", mention_count: 2 },
      { name: "新加坡", mention_count: 1 },
      { name: "私有化部署", mention_count: 1 },
    ]);
    expect((await db.query<{ relation: string }>(`SELECT relation FROM graph_relations ORDER BY relation`)).map((r) => r.relation)).toEqual(["co_occurs", "co_occurs"]);
    await db.query(`DELETE FROM chunks WHERE id = 'c1'`);
    expect(await db.query(`SELECT count(*)::int AS n FROM graph_entities`)).toEqual([{ n: 0 }]);
    expect(await db.query(`SELECT count(*)::int AS n FROM graph_relations`)).toEqual([{ n: 0 }]);
  });
});

// Migration 20261207010000 (relation supports held by mention rows, no foreign keys, cascades as
// statement-level triggers) carries a graph written in the integer-id layout before it.
describe("migration of relation supports into mention rows", () => {
  let db: SqlRunner;
  let close: () => Promise<void>;
  let before: string;
  const raw = () => ({ $queryRawUnsafe: <T,>(sql: string, ...params: unknown[]) => db.query(sql, params) as Promise<T> });

  beforeAll(async () => {
    ({ db, close } = await openMigrationRunner());
    before = migrationsUpTo((n) => n < SUPPORTS_IN_MENTIONS);
    await applyMigrations(db, before);
    // Written as the graph stage of the previous layout wrote it, plus two supports no mention
    // row of either end can hold (r5 only has such a support, r6 one of two).
    await db.exec(`
      INSERT INTO users (id, email, name) VALUES ('u1', 'u1@x.test', 'U');
      INSERT INTO knowledges (id, owner_id, name) VALUES ('kb1', 'u1', 'KB'), ('kb2', 'u1', 'KB 2');
      INSERT INTO knowledge_files (id, knowledge_id, name, file_type, mime_type, size, sha256, storage_key, graph_sentence_count)
        VALUES ('f1', 'kb1', 'a.txt', 'txt', 'text/plain', 10, 'x', 'k', 6), ('f2', 'kb2', 'b.txt', 'txt', 'text/plain', 10, 'y', 'k2', 1);
      INSERT INTO chunks (id, knowledge_id, file_id, ordinal, content) VALUES
        ('c1', 'kb1', 'f1', 0, '云笺支持私有化部署。云笺在新加坡。新加坡私有化部署。'), ('c2', 'kb1', 'f1', 1, '新加坡节点。私有化部署。'), ('c3', 'kb1', 'f1', 2, '无名。'),
        ('d1', 'kb2', 'f2', 0, '云笺。');
      INSERT INTO graph_entities (id, knowledge_id, name, norm_name, type, aliases, mention_count) VALUES
        (1, 'kb1', '云笺', '云笺', 'product', ARRAY['Yunjian'], 2), (2, 'kb1', '私有化部署', '私有化部署', 'other', ARRAY[]::text[], 3),
        (3, 'kb1', '新加坡', '新加坡', 'place', ARRAY[]::text[], 3), (4, 'kb2', '云笺', '云笺', 'product', ARRAY[]::text[], 1);
      INSERT INTO graph_mentions (entity_id, chunk_id, start, "end", count) VALUES
        (1, 'c1', 0, 2, 2), (2, 'c1', 4, 9, 2), (2, 'c2', 6, 11, 1), (3, 'c1', 13, 16, 2), (3, 'c2', 0, 3, 1), (4, 'd1', 0, 2, 1);
      INSERT INTO graph_relations (id, knowledge_id, source_id, target_id, relation, support_count) VALUES
        (1, 'kb1', 1, 2, 'co_occurs', 1), (2, 'kb1', 1, 3, 'co_occurs', 1), (3, 'kb1', 3, 2, '位于', 2),
        (4, 'kb1', 1, 3, '位于', 1), (5, 'kb1', 1, 2, '无关', 1), (6, 'kb1', 2, 3, 'co_occurs', 3);
      INSERT INTO graph_relation_supports (relation_id, chunk_id, start, "end", count) VALUES
        (1, 'c1', 0, 10, 1), (2, 'c1', 10, 17, 1), (3, 'c2', 0, 12, 1), (3, 'c1', 17, 26, 1),
        (4, 'c2', 0, 6, 1), (5, 'c3', 0, 3, 1), (6, 'c1', 17, 26, 2), (6, 'c3', 0, 3, 1);
      SELECT setval(pg_get_serial_sequence('"graph_entities"', 'id'), 4);
      SELECT setval(pg_get_serial_sequence('"graph_relations"', 'id'), 6);
    `);
    // This migration and every later one, in order.
    expect(await applyMigrations(db)).toEqual(readdirSync(migrationsDir()).filter((n) => /^\d/.test(n) && n >= SUPPORTS_IN_MENTIONS).sort());
  });
  afterAll(async () => {
    await close();
    rmSync(before, { recursive: true, force: true });
  });

  it("moves every support into a mention row of one of its relation's ends, and keeps the counts what the rows say", async () => {
    expect(await db.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'graph_relation_supports'`)).toEqual([{ n: 0 }]);
    const mentions = await db.query<{ m: string }>(
      `SELECT entity_id || '@' || chunk_id || ':' || start || '-' || "end" || 'x' || count || ' ' || coalesce(relation_ids::text, '-') || ' ' || coalesce(relation_spans::text, '-') AS m
         FROM graph_mentions ORDER BY entity_id, chunk_id`,
    );
    expect(mentions.map((r) => r.m)).toEqual([
      "1@c1:0-2x2 {1,2} {0,10,1,10,17,1}", // the source holds its supports
      "2@c1:4-9x2 {6} {17,26,2}",
      "2@c2:6-11x1 - -",
      "3@c1:13-16x2 {3} {17,26,1}",
      "3@c2:0-3x1 {3,4} {0,12,1,0,6,1}", // r4's source (1) has no mention in c2: its target holds it
      "4@d1:0-2x1 - -",
    ]);
    // r5's one support and one of r6's were in a chunk neither end is mentioned in: r5 goes, r6 counts 2.
    expect(await db.query(`SELECT id::int AS id, support_count FROM graph_relations ORDER BY id`)).toEqual([
      { id: 1, support_count: 1 },
      { id: 2, support_count: 1 },
      { id: 3, support_count: 2 },
      { id: 4, support_count: 1 },
      { id: 6, support_count: 2 },
    ]);
    // What the query reads: each relation's passages with the sentence it cites.
    const passages = await relationSupports(raw(), { knowledgeId: "kb1", relationIds: ["1", "3", "4", "6"], perRelation: 5 });
    expect(Object.fromEntries([...passages].map(([id, list]) => [id, list.map((p) => `${p.chunk_id}:${p.quote}`)]))).toEqual({
      "1": ["c1:云笺支持私有化部署。"],
      "3": ["c1:新加坡私有化部署。", "c2:新加坡节点。私有化部署。"], // the old support's span was both sentences
      "4": ["c2:新加坡节点。"],
      "6": ["c1:新加坡私有化部署。"],
    });
    const fks = await db.query(`SELECT conname FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text LIKE 'graph\\_%'`);
    expect(fks).toEqual([]);
  });

  it("deleting chunks, entities or a knowledge base removes what they held and what nothing supports any more", async () => {
    // c2 goes (a reparse or a file delete): 2@c2 and 3@c2 with it, r4 (supported there only) goes, r3 counts 1.
    await db.query(`DELETE FROM chunks WHERE id = 'c2'`);
    expect(await db.query(`SELECT id::int AS id, mention_count FROM graph_entities ORDER BY id`)).toEqual([
      { id: 1, mention_count: 2 },
      { id: 2, mention_count: 2 },
      { id: 3, mention_count: 2 },
      { id: 4, mention_count: 1 },
    ]);
    expect(await db.query(`SELECT id::int AS id, support_count FROM graph_relations ORDER BY id`)).toEqual([
      { id: 1, support_count: 1 },
      { id: 2, support_count: 1 },
      { id: 3, support_count: 1 },
      { id: 6, support_count: 2 },
    ]);
    // An entity deleted (the graph turned off deletes the KB's entities): its mentions and every relation it is an end of.
    await db.query(`DELETE FROM graph_entities WHERE id = 1`);
    expect(await db.query(`SELECT id::int AS id FROM graph_relations ORDER BY id`)).toEqual([{ id: 3 }, { id: 6 }]);
    expect(await db.query(`SELECT count(*)::int AS n FROM graph_mentions WHERE entity_id = 1`)).toEqual([{ n: 0 }]);
    // The last chunk of kb1 goes: nothing of kb1's graph is left.
    await db.query(`DELETE FROM chunks WHERE id IN ('c1', 'c3')`);
    expect(await db.query(`SELECT knowledge_id, count(*)::int AS n FROM graph_entities GROUP BY 1`)).toEqual([{ knowledge_id: "kb2", n: 1 }]);
    expect(await db.query(`SELECT count(*)::int AS n FROM graph_relations`)).toEqual([{ n: 0 }]);
    // A knowledge base deleted: its entities and their mentions.
    await db.query(`DELETE FROM knowledges WHERE id = 'kb2'`);
    expect(await db.query(`SELECT (SELECT count(*) FROM graph_entities)::int AS e, (SELECT count(*) FROM graph_mentions)::int AS m`)).toEqual([{ e: 0, m: 0 }]);
  });
});
