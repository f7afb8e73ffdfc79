-- Knowledge graph (issue 19): entities, relations and their mentions in chunks, per KB.
--
-- Exactness: a mention or a relation's support row belongs to one chunk (ON DELETE CASCADE), so
-- deleting chunks by any path (a reparse replacing a file's chunks, a file's delete, a KB's
-- delete) deletes what they supported. Statement-level triggers keep each entity's mention count
-- and each relation's support count and delete an entity or relation that nothing supports any
-- more, so no entity or relation outlives its last chunk.

ALTER TABLE "knowledges"
  ADD COLUMN "graph_enabled" BOOLEAN NOT NULL DEFAULT true,
  ADD COLUMN "graph_model_enabled" BOOLEAN NOT NULL DEFAULT false;

-- The graph stage's own status per file: pending | building | success | failed | skipped.
ALTER TABLE "knowledge_files"
  ADD COLUMN "graph_status" TEXT NOT NULL DEFAULT 'pending',
  ADD COLUMN "graph_error_code" TEXT,
  ADD COLUMN "graph_error_message" TEXT,
  ADD COLUMN "graph_percent" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "graph_tokens" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "graph_sentence_count" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "graph_updated_at" TIMESTAMPTZ(3);

CREATE TABLE "graph_entities" (
  "id" TEXT NOT NULL,
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
CREATE UNIQUE INDEX "graph_entities_knowledge_id_norm_name_key" ON "graph_entities"("knowledge_id", "norm_name");
CREATE INDEX "graph_entities_norm_name_idx" ON "graph_entities" USING GIN ("norm_name" gin_trgm_ops);

-- One row per entity and chunk (the first occurrence's offsets in the chunk, and how often).
CREATE TABLE "graph_mentions" (
  "entity_id" TEXT NOT NULL,
  "chunk_id" TEXT NOT NULL,
  "knowledge_id" TEXT NOT NULL,
  "file_id" TEXT NOT NULL,
  "surface" TEXT NOT NULL,
  "start" INTEGER NOT NULL,
  "end" INTEGER NOT NULL,
  "count" INTEGER NOT NULL DEFAULT 1,
  CONSTRAINT "graph_mentions_pkey" PRIMARY KEY ("entity_id", "chunk_id"),
  CONSTRAINT "graph_mentions_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "graph_entities"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "graph_mentions_chunk_id_fkey" FOREIGN KEY ("chunk_id") REFERENCES "chunks"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "graph_mentions_chunk_id_idx" ON "graph_mentions"("chunk_id");

-- source_id < target_id for undirected co-occurrence; a model's relation keeps its direction.
CREATE TABLE "graph_relations" (
  "id" TEXT NOT NULL,
  "knowledge_id" TEXT NOT NULL,
  "source_id" TEXT NOT NULL,
  "target_id" TEXT NOT NULL,
  "relation" TEXT NOT NULL,
  "description" TEXT NOT NULL DEFAULT '',
  "support_count" INTEGER NOT NULL DEFAULT 0,
  CONSTRAINT "graph_relations_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "graph_relations_knowledge_id_fkey" FOREIGN KEY ("knowledge_id") REFERENCES "knowledges"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "graph_relations_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "graph_entities"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "graph_relations_target_id_fkey" FOREIGN KEY ("target_id") REFERENCES "graph_entities"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "graph_relations_source_id_target_id_relation_key" ON "graph_relations"("source_id", "target_id", "relation");
CREATE INDEX "graph_relations_target_id_idx" ON "graph_relations"("target_id");

-- One row per relation and chunk: the sentence (offsets in the chunk) that supports it first,
-- and how many sentences of the chunk do.
CREATE TABLE "graph_relation_supports" (
  "relation_id" TEXT NOT NULL,
  "chunk_id" TEXT NOT NULL,
  "file_id" TEXT NOT NULL,
  "start" INTEGER NOT NULL,
  "end" INTEGER NOT NULL,
  "count" INTEGER NOT NULL DEFAULT 1,
  CONSTRAINT "graph_relation_supports_pkey" PRIMARY KEY ("relation_id", "chunk_id"),
  CONSTRAINT "graph_relation_supports_relation_id_fkey" FOREIGN KEY ("relation_id") REFERENCES "graph_relations"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "graph_relation_supports_chunk_id_fkey" FOREIGN KEY ("chunk_id") REFERENCES "chunks"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "graph_relation_supports_chunk_id_idx" ON "graph_relation_supports"("chunk_id");

CREATE FUNCTION "graph_mentions_counted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE "graph_entities" e SET "mention_count" = e."mention_count" + d.n
      FROM (SELECT "entity_id", sum("count")::int AS n FROM new_rows GROUP BY "entity_id") d
     WHERE e."id" = d."entity_id";
  ELSE
    UPDATE "graph_entities" e SET "mention_count" = e."mention_count" - d.n
      FROM (SELECT "entity_id", sum("count")::int AS n FROM old_rows GROUP BY "entity_id") d
     WHERE e."id" = d."entity_id";
    DELETE FROM "graph_entities" WHERE "id" IN (SELECT "entity_id" FROM old_rows) AND "mention_count" <= 0;
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER "graph_mentions_insert_count" AFTER INSERT ON "graph_mentions"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "graph_mentions_counted"();
CREATE TRIGGER "graph_mentions_delete_count" AFTER DELETE ON "graph_mentions"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "graph_mentions_counted"();

CREATE FUNCTION "graph_supports_counted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE "graph_relations" r SET "support_count" = r."support_count" + d.n
      FROM (SELECT "relation_id", sum("count")::int AS n FROM new_rows GROUP BY "relation_id") d
     WHERE r."id" = d."relation_id";
  ELSE
    UPDATE "graph_relations" r SET "support_count" = r."support_count" - d.n
      FROM (SELECT "relation_id", sum("count")::int AS n FROM old_rows GROUP BY "relation_id") d
     WHERE r."id" = d."relation_id";
    DELETE FROM "graph_relations" WHERE "id" IN (SELECT "relation_id" FROM old_rows) AND "support_count" <= 0;
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER "graph_supports_insert_count" AFTER INSERT ON "graph_relation_supports"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "graph_supports_counted"();
CREATE TRIGGER "graph_supports_delete_count" AFTER DELETE ON "graph_relation_supports"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "graph_supports_counted"();
