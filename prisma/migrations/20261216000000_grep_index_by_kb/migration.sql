-- grep_chunks' trigram index keyed by knowledge base too (session 22).
--
-- Why. chunk_grep_text_trgm_idx indexed the text of every chunk of every knowledge base, and the
-- knowledge bases a call searches were applied after the index: the index gave every chunk of the
-- whole instance whose text may hold the keyword, each was rechecked (its text read through
-- chunk_grep_text) and only then dropped for belonging to another knowledge base. So one user's
-- grep paid for everybody's data: a 30-chunk knowledge base answered "weather" in 283-451 ms on
-- PGlite and 184 ms on PostgreSQL (median of 7) next to another owner's 50,000 chunks holding the
-- word, against 2-3 ms for a word only it held (docs/bench-tools.md, "Session 22").
--
-- How. chunk_grep keeps its chunk's knowledge base (a chunk's knowledge_id is never updated), and
-- one GIN index covers (knowledge base, text): btree_gin indexes the knowledge base id as a GIN
-- key beside the trigrams, so a scan with both conditions visits only the chunks of the searched
-- knowledge base that hold every trigram of the keyword. A GIN scan cannot take `= ANY(array)`,
-- so grep_chunks asks once per searched knowledge base (lib/tools/grep-chunks.ts). A column, not a
-- function of chunk_id like the text: the index's recheck then compares it in the row instead of
-- looking the chunk up a second time (with a function, a large knowledge base's own grep went
-- from 26-35 to 59-70 ms on PostgreSQL).
--
-- The entries are rebuilt in the background, not here: the table starts empty and every file is
-- marked not grep_indexed, so the ingestion runner adds them again after start-up (lib/retrieval/
-- grep-index.ts) while grep_chunks scans those files' chunks meanwhile (the same matches, found
-- more slowly). Building the index here would hold the start-up for as long as the trigram
-- extraction of every chunk takes (seconds per 10,000 chunks on PGlite).
CREATE EXTENSION IF NOT EXISTS btree_gin;

DROP INDEX "chunk_grep_text_trgm_idx";
DELETE FROM "chunk_grep";
UPDATE "knowledge_files" SET "grep_indexed" = false WHERE "grep_indexed";

ALTER TABLE "chunk_grep" ADD COLUMN "knowledge_id" TEXT NOT NULL;

CREATE INDEX "chunk_grep_kb_text_idx" ON "chunk_grep" USING GIN ("knowledge_id", "chunk_grep_text"("chunk_id") gin_trgm_ops)
  WITH (gin_pending_list_limit = 1024);
