-- Postings follow their chunk through a statement-level trigger instead of a foreign key.
--
-- The foreign key chunk_terms.chunk_id -> chunks.id checked every posting written, one row at a
-- time (an index probe and a key-share lock on the chunk): on PostgreSQL, inserting 20,000
-- postings of 1,000 chunks took 121-162 ms plus 65 ms in that check; `bench:ingest` on PGlite
-- went from 362-370 to 415-433 chunks/s with this migration (2 + 2 runs). The only writer of
-- postings is the index writer (lib/retrieval/index-writer.ts), which inserts them in the same
-- transaction as their chunks, after them, with the file row locked; so the check guarded
-- nothing that can happen. What the key also did, ON DELETE CASCADE, is kept: deleting chunks
-- (a file's reparse or delete, a knowledge base's delete through its cascades) deletes their
-- postings in one statement per statement on chunks, and the document-frequency trigger on
-- chunk_terms (20261202020000_retrieval_speed) sees that delete as before. Chunk ids are never
-- updated (ON UPDATE CASCADE had nothing to do).
ALTER TABLE "chunk_terms" DROP CONSTRAINT IF EXISTS "chunk_terms_chunk_id_fkey";

CREATE FUNCTION "chunk_terms_follow_chunks"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "chunk_terms" WHERE "chunk_id" IN (SELECT "id" FROM old_rows);
  RETURN NULL;
END;
$$;

CREATE TRIGGER "chunks_delete_postings" AFTER DELETE ON "chunks"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "chunk_terms_follow_chunks"();
