-- grep_chunks' trigram index over blocks of consecutive chunks instead of over every chunk
-- (issue 22: the indexing write, the probes' waits and storage).
--
-- Why. The trigram GIN index of chunks.content (20261204030000_agent_tools) was about 47 % of a big
-- file's database write (docs/bench-ingest-under-load.md, session 14: 3.7 of 7.8 s for a 10 MB
-- Markdown file) and its pending-list flushes were among the long statements a health probe waits
-- for on embedded PGlite (session 15: without the pending list, health p95 fell from 168 to 55-61
-- ms, but files became ready 2-3x later). Its cost is one index entry per distinct trigram per
-- chunk: the same trigram in 32 neighbouring chunks was 32 entries.
--
-- What. grep_blocks holds, per file, its chunks' text in blocks of up to 32 consecutive chunks
-- (by ordinal; a block never spans two write batches) joined by a newline, with the trigram index
-- on the block. A chunk containing a keyword makes its block contain it, so the blocks an ILIKE
-- finds through the index are a superset of the chunks' blocks; grep_chunks then checks the
-- chunks of those blocks themselves (through chunks_file_id_ordinal_key). A trigram repeated in a
-- block is one entry: in show_trgm counts, 23x fewer entries than per chunk for bench:ingest's
-- generated Markdown (random words from a small vocabulary), 5.5x for SciFact abstracts (English
-- prose), 1.2x for cmrc2018 (Chinese: three-character sequences rarely repeat). The block's text is
-- over TOAST's 2 kB threshold, so PostgreSQL stores it compressed.
--
-- Lifetime. Blocks follow their file (foreign key, cascade) for file and KB deletion; the index
-- writer deletes a file's blocks with its chunks when it re-indexes it (lib/retrieval/index-writer.ts).
CREATE TABLE "grep_blocks" (
  "file_id" TEXT NOT NULL,
  "first_ordinal" INTEGER NOT NULL,
  "last_ordinal" INTEGER NOT NULL,
  "knowledge_id" TEXT NOT NULL,
  "content" TEXT NOT NULL,
  CONSTRAINT "grep_blocks_pkey" PRIMARY KEY ("file_id", "first_ordinal"),
  CONSTRAINT "grep_blocks_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "knowledge_files"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- The chunks already indexed, in blocks of 32 ordinals of their file (their write batches are not
-- recorded; any grouping of consecutive chunks gives valid blocks).
INSERT INTO "grep_blocks" ("file_id", "first_ordinal", "last_ordinal", "knowledge_id", "content")
SELECT c."file_id", min(c."ordinal"), max(c."ordinal"), min(c."knowledge_id"), string_agg(c."content", E'\n' ORDER BY c."ordinal")
FROM "chunks" c
GROUP BY c."file_id", c."ordinal" / 32;

CREATE INDEX "grep_blocks_content_trgm_idx" ON "grep_blocks" USING GIN ("content" gin_trgm_ops);
DROP INDEX IF EXISTS "chunks_content_trgm_idx";
