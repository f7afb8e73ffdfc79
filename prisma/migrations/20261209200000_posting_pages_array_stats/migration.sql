-- No planner statistics on posting_pages' array columns (issue 22, session 14).
--
-- Why. ANALYZE computes, for every array column, the most common elements of its sampled arrays
-- (one hash entry per element: here every chunk id of every sampled page). No query filters on
-- these arrays' elements — the readers find pages by (knowledge_id, term) and file_id and unnest
-- them — so those statistics were never used, and they were ~70 % of an ANALYZE of the table
-- (848 small files on embedded PGlite: 1.33 s → 0.39 s per ANALYZE). The index writer analyzes
-- this table itself on embedded PGlite (lib/retrieval/index-writer.ts), on the indexing path.
-- The other columns keep the default target. No data changes.
ALTER TABLE "posting_pages"
  ALTER COLUMN "chunk_ids" SET STATISTICS 0,
  ALTER COLUMN "tfs" SET STATISTICS 0,
  ALTER COLUMN "doc_lens" SET STATISTICS 0,
  ALTER COLUMN "ordinals" SET STATISTICS 0;
