-- Knowledge graph: fewer rows and no per-row foreign-key checks on the graph's writes
-- (issue 19, docs/bench-graph.md "Session 12").
--
-- Profiled on the cmrc2018 KB (12 files, 6,290 entities, 9,966 relations, 10,075 mentions,
-- 11,737 relation supports), the graph stage's writes were 70-80 % of the stage. Two causes:
--
-- 1. Foreign-key checks: every mention, relation and support row ran one to three of them (an
--    index probe and a key-share lock on the referenced row, one row at a time). Dropping them on
--    a copy cut the four INSERTs from 2.2 to 1.1 s on PGlite. Only the graph stage writes these
--    tables, under the file's row lock, with the entities and relations it references upserted
--    (and so locked) in the same transaction and the file's chunks locked FOR KEY SHARE in one
--    statement (lib/graph/store.ts), which is what the checks guarded. What the keys also did,
--    ON DELETE CASCADE, is kept by statement-level triggers (as chunk_terms does since
--    20261203020000_postings_cascade): deleting chunks deletes their graph rows, deleting
--    entities deletes their mentions and relations, deleting a knowledge base its entities.
-- 2. A support row per relation and chunk, with two indexes: the relation's support in a chunk now
--    lives in the mention row of one of its ends in that chunk (the writer uses the source's), as
--    two arrays: relation_ids, and relation_spans with three numbers per relation (start and end
--    of the first sentence that names both, the number of such sentences in the chunk). A
--    co-occurrence or model relation is only written for a chunk that mentions both ends, so that
--    mention row always exists, and it goes with the chunk as the support row did.
--
-- Existing graphs are carried: each support moves into its source's mention row of the same
-- chunk (the target's where the source has none); a support with neither (not written by any
-- version of the stage) is dropped and its relation's count follows, so every relation keeps the
-- count of what supports it and one without any support goes.

ALTER TABLE "graph_mentions"
  ADD COLUMN "relation_ids" BIGINT[],
  ADD COLUMN "relation_spans" INTEGER[];

CREATE TEMP TABLE "_graph_support_home" ON COMMIT DROP AS
  SELECT s."relation_id", s."chunk_id", s."start", s."end", s."count",
         CASE WHEN EXISTS (SELECT 1 FROM "graph_mentions" m WHERE m."entity_id" = r."source_id" AND m."chunk_id" = s."chunk_id") THEN r."source_id"
              WHEN EXISTS (SELECT 1 FROM "graph_mentions" m WHERE m."entity_id" = r."target_id" AND m."chunk_id" = s."chunk_id") THEN r."target_id" END AS "entity_id"
    FROM "graph_relation_supports" s JOIN "graph_relations" r ON r."id" = s."relation_id";

UPDATE "graph_mentions" m
   SET "relation_ids" = h."ids", "relation_spans" = h."spans"
  FROM (SELECT "entity_id", "chunk_id",
               array_agg("relation_id" ORDER BY "relation_id") FILTER (WHERE k = 1) AS "ids",
               array_agg(v ORDER BY "relation_id", k) AS "spans"
          FROM "_graph_support_home" CROSS JOIN LATERAL unnest(ARRAY["start", "end", "count"]) WITH ORDINALITY AS x(v, k)
         WHERE "entity_id" IS NOT NULL
         GROUP BY "entity_id", "chunk_id") h
 WHERE m."entity_id" = h."entity_id" AND m."chunk_id" = h."chunk_id";

UPDATE "graph_relations" r
   SET "support_count" = coalesce((SELECT sum(h."count") FROM "_graph_support_home" h WHERE h."relation_id" = r."id" AND h."entity_id" IS NOT NULL), 0);
DELETE FROM "graph_relations" WHERE "support_count" <= 0;

-- The support table goes (with its DELETE trigger); its trigger function with it.
DROP TABLE "graph_relation_supports";
DROP FUNCTION "graph_supports_counted"();

ALTER TABLE "graph_mentions" DROP CONSTRAINT "graph_mentions_entity_id_fkey", DROP CONSTRAINT "graph_mentions_chunk_id_fkey";
ALTER TABLE "graph_relations"
  DROP CONSTRAINT "graph_relations_knowledge_id_fkey",
  DROP CONSTRAINT "graph_relations_source_id_fkey",
  DROP CONSTRAINT "graph_relations_target_id_fkey";
ALTER TABLE "graph_entities" DROP CONSTRAINT "graph_entities_knowledge_id_fkey";

-- Mentions deleted (with their chunk, by a rebuild of the file's graph, or with their entity):
-- the entities' mention counts and the relations' support counts they held go down, and what
-- nothing supports any more is deleted. (The trigger graph_mentions_delete_count of
-- 20261205093000 calls this function; there is no INSERT trigger since 20261205080000.)
CREATE OR REPLACE FUNCTION "graph_mentions_counted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Statement-level triggers fire for statements that deleted nothing, too (these delete from
  -- each other's tables): nothing deleted, nothing to follow.
  IF NOT EXISTS (SELECT 1 FROM old_rows) THEN RETURN NULL; END IF;
  UPDATE "graph_entities" e SET "mention_count" = e."mention_count" - d.n
    FROM (SELECT "entity_id", sum("count")::int AS n FROM old_rows GROUP BY "entity_id") d
   WHERE e."id" = d."entity_id";
  UPDATE "graph_relations" r SET "support_count" = r."support_count" - d.n
    FROM (SELECT x.rid, sum(o."relation_spans"[3 * x.i])::int AS n
            FROM old_rows o CROSS JOIN LATERAL unnest(o."relation_ids") WITH ORDINALITY AS x(rid, i)
           GROUP BY x.rid) d
   WHERE r."id" = d.rid;
  DELETE FROM "graph_relations" WHERE "id" IN (SELECT unnest("relation_ids") FROM old_rows) AND "support_count" <= 0;
  DELETE FROM "graph_entities" WHERE "id" IN (SELECT "entity_id" FROM old_rows) AND "mention_count" <= 0;
  RETURN NULL;
END;
$$;

-- Chunks deleted (a reparse replacing a file's chunks, a file's or a knowledge base's delete):
-- their mentions, and with them the supports they held.
CREATE FUNCTION "graph_follow_chunks"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM old_rows) THEN RETURN NULL; END IF;
  DELETE FROM "graph_mentions" WHERE "chunk_id" IN (SELECT "id" FROM old_rows);
  RETURN NULL;
END;
$$;
CREATE TRIGGER "chunks_delete_graph" AFTER DELETE ON "chunks"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "graph_follow_chunks"();

-- Entities deleted (the KB's graph turned off, a knowledge base deleted, or the last mention
-- gone): their mentions and every relation with them at either end.
CREATE FUNCTION "graph_follow_entities"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM old_rows) THEN RETURN NULL; END IF;
  DELETE FROM "graph_mentions" WHERE "entity_id" IN (SELECT "id" FROM old_rows);
  DELETE FROM "graph_relations" WHERE "source_id" IN (SELECT "id" FROM old_rows);
  DELETE FROM "graph_relations" WHERE "target_id" IN (SELECT "id" FROM old_rows);
  RETURN NULL;
END;
$$;
CREATE TRIGGER "graph_entities_delete_follow" AFTER DELETE ON "graph_entities"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "graph_follow_entities"();

-- A knowledge base deleted: its entities (its relations and mentions follow them).
CREATE FUNCTION "graph_follow_knowledges"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM old_rows) THEN RETURN NULL; END IF;
  DELETE FROM "graph_entities" WHERE "knowledge_id" IN (SELECT "id" FROM old_rows);
  RETURN NULL;
END;
$$;
CREATE TRIGGER "knowledges_delete_graph" AFTER DELETE ON "knowledges"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "graph_follow_knowledges"();
