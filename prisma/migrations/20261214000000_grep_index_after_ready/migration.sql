-- The trigram index of the chunks' text (grep_chunks) is built after a file is searchable, not
-- inside every indexing batch (issue 22 item 2, ingestion speed).
--
-- Why. Maintaining a trigram GIN index on chunks.content was more than half of what writing a
-- large file's chunks cost on embedded PGlite: bench:ingest's 29,613 chunks of the 1,500-page PDF
-- and the 10 MB Markdown file took 11.0 s to write with it and 5.2 s without, in process
-- (scripts/write-path-profile.ts); extracting the 6.2 million trigrams alone (show_trgm over the
-- same rows) took 3.6 s. The index only serves grep_chunks' literal keyword match, which a file
-- needs no sooner than its lexical index, so the file is made searchable first and the trigram
-- entries follow in the background (lib/retrieval/grep-index.ts); until they are complete,
-- grep_chunks scans that file's chunks (knowledge_files.grep_indexed false).
--
-- How, without rewriting the chunks. A row of chunk_grep names one chunk whose text is in the
-- trigram index: the index is on chunk_grep_text(chunk_id), the chunk's content. The function
-- reads another table, so it is IMMUTABLE only by this schema's rule, which the writer keeps: a
-- chunk's content is never updated (a reparse deletes the file's chunks and inserts new ones
-- under new ids), and a chunk's chunk_grep row is deleted in the same statement as the chunk (the
-- trigger below), so a visible row's indexed text is always its chunk's text. The table is
-- qualified because pg_dump restores with an empty search_path. A partial index on chunks would
-- have needed an UPDATE of every chunk (a second copy of each row until VACUUM).
--
-- Files already indexed are not backfilled here (that would hold the start-up for as long as the
-- index takes to build): they start with grep_indexed false, are matched by scanning their
-- chunks, and the ingestion runner builds their entries in the background after start-up.

CREATE TABLE "chunk_grep" (
  "chunk_id" TEXT NOT NULL PRIMARY KEY
);

CREATE FUNCTION "chunk_grep_text"("id" TEXT) RETURNS TEXT
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT "content" FROM "public"."chunks" WHERE "id" = $1 $$;

CREATE INDEX "chunk_grep_text_trgm_idx" ON "chunk_grep" USING GIN ("chunk_grep_text"("chunk_id") gin_trgm_ops)
  WITH (gin_pending_list_limit = 1024);

ALTER TABLE "knowledge_files" ADD COLUMN "grep_indexed" BOOLEAN NOT NULL DEFAULT false;

-- Chunks deleted (a reparse, a file's or a knowledge base's delete): their chunk_grep rows.
CREATE FUNCTION "chunk_grep_follow_chunks"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM old_rows) THEN RETURN NULL; END IF;
  DELETE FROM "chunk_grep" WHERE "chunk_id" IN (SELECT "id" FROM old_rows);
  RETURN NULL;
END;
$$;
CREATE TRIGGER "chunks_delete_grep" AFTER DELETE ON "chunks"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "chunk_grep_follow_chunks"();

DROP INDEX IF EXISTS "chunks_content_trgm_idx";
