-- Retrieval speed: a per-KB document-frequency table for BM25, maintained by statement-level
-- triggers on "chunk_terms" (so inserts by replaceFileChunks, file/KB deletes by cascade and any
-- other writer keep it exact), and a postings index ordered by impact (tf high, chunk short
-- first) so a query can read only the best postings of a very common term.

CREATE TABLE "retrieval_term_stats" (
  "knowledge_id" TEXT NOT NULL,
  "term" TEXT NOT NULL,
  "df" BIGINT NOT NULL DEFAULT 0,
  CONSTRAINT "retrieval_term_stats_pkey" PRIMARY KEY ("knowledge_id", "term")
);

INSERT INTO "retrieval_term_stats" ("knowledge_id", "term", "df")
SELECT "knowledge_id", "term", count(*) FROM "chunk_terms" GROUP BY "knowledge_id", "term";

CREATE FUNCTION "retrieval_term_stats_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Rows are upserted in key order so concurrent writers of one KB cannot deadlock.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "retrieval_term_stats" AS s ("knowledge_id", "term", "df")
    SELECT "knowledge_id", "term", count(*) FROM new_rows GROUP BY "knowledge_id", "term" ORDER BY "knowledge_id", "term"
    ON CONFLICT ("knowledge_id", "term") DO UPDATE SET "df" = s."df" + EXCLUDED."df";
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE "retrieval_term_stats" s SET "df" = s."df" - o.c
    FROM (SELECT "knowledge_id", "term", count(*) AS c FROM old_rows GROUP BY "knowledge_id", "term" ORDER BY "knowledge_id", "term") o
    WHERE s."knowledge_id" = o."knowledge_id" AND s."term" = o."term";
    DELETE FROM "retrieval_term_stats" s USING (SELECT DISTINCT "knowledge_id", "term" FROM old_rows) o
    WHERE s."knowledge_id" = o."knowledge_id" AND s."term" = o."term" AND s."df" <= 0;
  ELSE -- UPDATE
    INSERT INTO "retrieval_term_stats" AS s ("knowledge_id", "term", "df")
    SELECT d."knowledge_id", d."term", sum(d.c) FROM (
      SELECT "knowledge_id", "term", 1 AS c FROM new_rows
      UNION ALL
      SELECT "knowledge_id", "term", -1 FROM old_rows
    ) d GROUP BY d."knowledge_id", d."term" HAVING sum(d.c) <> 0 ORDER BY d."knowledge_id", d."term"
    ON CONFLICT ("knowledge_id", "term") DO UPDATE SET "df" = s."df" + EXCLUDED."df";
    DELETE FROM "retrieval_term_stats" s WHERE s."df" <= 0
      AND (s."knowledge_id", s."term") IN (SELECT "knowledge_id", "term" FROM old_rows);
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "chunk_terms_stats_insert" AFTER INSERT ON "chunk_terms"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "retrieval_term_stats_apply"();
CREATE TRIGGER "chunk_terms_stats_delete" AFTER DELETE ON "chunk_terms"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "retrieval_term_stats_apply"();
CREATE TRIGGER "chunk_terms_stats_update" AFTER UPDATE ON "chunk_terms"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "retrieval_term_stats_apply"();

-- Impact order within a term: higher tf first, then shorter chunks (BM25's term weight grows
-- with tf and shrinks with length). Covers the columns the scoring reads.
CREATE INDEX "chunk_terms_impact_idx" ON "chunk_terms" ("knowledge_id", "term", "tf" DESC, "doc_len", "chunk_id") INCLUDE ("file_id");
