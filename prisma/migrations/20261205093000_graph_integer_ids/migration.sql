-- Knowledge graph: integer ids for entities and relations (issue 19, docs/bench-graph.md).
--
-- The graph's ids were 36-character text UUIDs (37 bytes stored), repeated in every mention and
-- relation-support row, in their primary keys, in each relation's two entity references and in
-- the relation key and target index: most of the graph's bytes that were not a chunk id. They are
-- now BIGSERIAL (8 bytes; BIGINT, not INTEGER, because an upsert draws a sequence value for every
-- row it proposes, so a KB rebuilt often draws far more values than it keeps). The API still
-- sends ids as strings (their decimal form), so the wire shape does not change.
--
-- Existing data is carried: every entity and relation gets a number (in creation order), the
-- mentions and supports are rewritten through that mapping, the sequences continue after the
-- highest number, and the DELETE triggers of 20261204060000 (counts, removing what no chunk
-- supports) are attached to the new tables again.

CREATE TEMP TABLE "_graph_entity_ids" ON COMMIT DROP AS
  SELECT "id" AS "old_id", row_number() OVER (ORDER BY "created_at", "id") AS "new_id" FROM "graph_entities";
CREATE TEMP TABLE "_graph_relation_ids" ON COMMIT DROP AS
  SELECT "id" AS "old_id", row_number() OVER (ORDER BY "id") AS "new_id" FROM "graph_relations";
CREATE TEMP TABLE "_graph_entities" ON COMMIT DROP AS
  SELECT m."new_id" AS "id", e."knowledge_id", e."name", e."norm_name", e."type", e."aliases", e."description", e."mention_count", e."created_at"
    FROM "graph_entities" e JOIN "_graph_entity_ids" m ON m."old_id" = e."id";
CREATE TEMP TABLE "_graph_mentions" ON COMMIT DROP AS
  SELECT m."new_id" AS "entity_id", x."chunk_id", x."start", x."end", x."count"
    FROM "graph_mentions" x JOIN "_graph_entity_ids" m ON m."old_id" = x."entity_id";
CREATE TEMP TABLE "_graph_relations" ON COMMIT DROP AS
  SELECT m."new_id" AS "id", r."knowledge_id", s."new_id" AS "source_id", t."new_id" AS "target_id", r."relation", r."description", r."support_count"
    FROM "graph_relations" r
    JOIN "_graph_relation_ids" m ON m."old_id" = r."id"
    JOIN "_graph_entity_ids" s ON s."old_id" = r."source_id"
    JOIN "_graph_entity_ids" t ON t."old_id" = r."target_id";
CREATE TEMP TABLE "_graph_relation_supports" ON COMMIT DROP AS
  SELECT m."new_id" AS "relation_id", x."chunk_id", x."start", x."end", x."count"
    FROM "graph_relation_supports" x JOIN "_graph_relation_ids" m ON m."old_id" = x."relation_id";

-- Dropping the tables drops their triggers; the trigger functions stay and are reattached below.
DROP TABLE "graph_relation_supports";
DROP TABLE "graph_relations";
DROP TABLE "graph_mentions";
DROP TABLE "graph_entities";

CREATE TABLE "graph_entities" (
  "id" BIGSERIAL NOT NULL,
  "knowledge_id" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "norm_name" TEXT NOT NULL,
  "type" TEXT NOT NULL,
  "aliases" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
  "description" TEXT NOT NULL DEFAULT '',
  "mention_count" INTEGER NOT NULL DEFAULT 0,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "graph_entities_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "graph_entities_knowledge_id_fkey" FOREIGN KEY ("knowledge_id") REFERENCES "knowledges"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE TABLE "graph_mentions" (
  "entity_id" BIGINT NOT NULL,
  "chunk_id" TEXT NOT NULL,
  "start" INTEGER NOT NULL,
  "end" INTEGER NOT NULL,
  "count" INTEGER NOT NULL DEFAULT 1,
  CONSTRAINT "graph_mentions_pkey" PRIMARY KEY ("entity_id", "chunk_id"),
  CONSTRAINT "graph_mentions_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "graph_entities"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "graph_mentions_chunk_id_fkey" FOREIGN KEY ("chunk_id") REFERENCES "chunks"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE TABLE "graph_relations" (
  "id" BIGSERIAL NOT NULL,
  "knowledge_id" TEXT NOT NULL,
  "source_id" BIGINT NOT NULL,
  "target_id" BIGINT NOT NULL,
  "relation" TEXT NOT NULL,
  "description" TEXT NOT NULL DEFAULT '',
  "support_count" INTEGER NOT NULL DEFAULT 0,
  CONSTRAINT "graph_relations_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "graph_relations_knowledge_id_fkey" FOREIGN KEY ("knowledge_id") REFERENCES "knowledges"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "graph_relations_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "graph_entities"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "graph_relations_target_id_fkey" FOREIGN KEY ("target_id") REFERENCES "graph_entities"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE TABLE "graph_relation_supports" (
  "relation_id" BIGINT NOT NULL,
  "chunk_id" TEXT NOT NULL,
  "start" INTEGER NOT NULL,
  "end" INTEGER NOT NULL,
  "count" INTEGER NOT NULL DEFAULT 1,
  CONSTRAINT "graph_relation_supports_pkey" PRIMARY KEY ("relation_id", "chunk_id"),
  CONSTRAINT "graph_relation_supports_relation_id_fkey" FOREIGN KEY ("relation_id") REFERENCES "graph_relations"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "graph_relation_supports_chunk_id_fkey" FOREIGN KEY ("chunk_id") REFERENCES "chunks"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

INSERT INTO "graph_entities" SELECT * FROM "_graph_entities";
INSERT INTO "graph_mentions" SELECT * FROM "_graph_mentions";
INSERT INTO "graph_relations" SELECT * FROM "_graph_relations";
INSERT INTO "graph_relation_supports" SELECT * FROM "_graph_relation_supports";
SELECT setval(pg_get_serial_sequence('"graph_entities"', 'id'), coalesce((SELECT max("id") FROM "graph_entities"), 0) + 1, false);
SELECT setval(pg_get_serial_sequence('"graph_relations"', 'id'), coalesce((SELECT max("id") FROM "graph_relations"), 0) + 1, false);

-- Indexes after the copy (one build each instead of per-row maintenance).
CREATE UNIQUE INDEX "graph_entities_knowledge_id_norm_name_key" ON "graph_entities"("knowledge_id", "norm_name");
CREATE INDEX "graph_entities_norm_name_idx" ON "graph_entities" USING GIN ("norm_name" gin_trgm_ops);
CREATE INDEX "graph_mentions_chunk_id_idx" ON "graph_mentions"("chunk_id");
CREATE UNIQUE INDEX "graph_relations_source_id_target_id_relation_key" ON "graph_relations"("source_id", "target_id", "relation");
CREATE INDEX "graph_relations_target_id_idx" ON "graph_relations"("target_id");
CREATE INDEX "graph_relation_supports_chunk_id_idx" ON "graph_relation_supports"("chunk_id");

CREATE TRIGGER "graph_mentions_delete_count" AFTER DELETE ON "graph_mentions"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "graph_mentions_counted"();
CREATE TRIGGER "graph_supports_delete_count" AFTER DELETE ON "graph_relation_supports"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "graph_supports_counted"();
