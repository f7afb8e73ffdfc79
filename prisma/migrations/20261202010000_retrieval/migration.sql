-- Retrieval: per-KB corpus statistics for BM25 (chunk count and token sum), maintained by
-- statement-level triggers on "chunks" so they stay exact whoever inserts or deletes chunks
-- (replaceFileChunks, a file or KB deleted by cascade). BM25 reads N and avgdl from here instead
-- of scanning every chunk of the KB on each query.
CREATE TABLE "retrieval_kb_stats" (
  "knowledge_id" TEXT NOT NULL,
  "chunk_count" BIGINT NOT NULL DEFAULT 0,
  "token_sum" BIGINT NOT NULL DEFAULT 0,
  CONSTRAINT "retrieval_kb_stats_pkey" PRIMARY KEY ("knowledge_id")
);

INSERT INTO "retrieval_kb_stats" ("knowledge_id", "chunk_count", "token_sum")
SELECT "knowledge_id", count(*), coalesce(sum("token_count"), 0) FROM "chunks" GROUP BY "knowledge_id";

CREATE FUNCTION "retrieval_kb_stats_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "retrieval_kb_stats" AS s ("knowledge_id", "chunk_count", "token_sum")
    SELECT "knowledge_id", count(*), coalesce(sum("token_count"), 0) FROM new_rows GROUP BY "knowledge_id" ORDER BY "knowledge_id"
    ON CONFLICT ("knowledge_id") DO UPDATE
      SET "chunk_count" = s."chunk_count" + EXCLUDED."chunk_count", "token_sum" = s."token_sum" + EXCLUDED."token_sum";
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "retrieval_kb_stats" AS s ("knowledge_id", "chunk_count", "token_sum")
    SELECT "knowledge_id", -count(*), -coalesce(sum("token_count"), 0) FROM old_rows GROUP BY "knowledge_id" ORDER BY "knowledge_id"
    ON CONFLICT ("knowledge_id") DO UPDATE
      SET "chunk_count" = s."chunk_count" + EXCLUDED."chunk_count", "token_sum" = s."token_sum" + EXCLUDED."token_sum";
  ELSE -- UPDATE
    INSERT INTO "retrieval_kb_stats" AS s ("knowledge_id", "chunk_count", "token_sum")
    SELECT d."knowledge_id", sum(d.c), sum(d.t) FROM (
      SELECT "knowledge_id", 1 AS c, "token_count"::bigint AS t FROM new_rows
      UNION ALL
      SELECT "knowledge_id", -1, -"token_count"::bigint FROM old_rows
    ) d GROUP BY d."knowledge_id" ORDER BY d."knowledge_id"
    ON CONFLICT ("knowledge_id") DO UPDATE
      SET "chunk_count" = s."chunk_count" + EXCLUDED."chunk_count", "token_sum" = s."token_sum" + EXCLUDED."token_sum";
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "chunks_stats_insert" AFTER INSERT ON "chunks"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "retrieval_kb_stats_apply"();
CREATE TRIGGER "chunks_stats_delete" AFTER DELETE ON "chunks"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "retrieval_kb_stats_apply"();
CREATE TRIGGER "chunks_stats_update" AFTER UPDATE ON "chunks"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "retrieval_kb_stats_apply"();

-- The chunk's token count on each posting, so BM25 needs no join to "chunks" per posting.
ALTER TABLE "chunk_terms" ADD COLUMN "doc_len" INTEGER NOT NULL DEFAULT 0;
UPDATE "chunk_terms" ct SET "doc_len" = c."token_count" FROM "chunks" c WHERE c."id" = ct."chunk_id";
