-- No planner statistics on posting_pages' level columns (issue 22 item 1, session 21).
--
-- Why. The writer analyzes posting_pages after every ~30,000 pages written (lib/retrieval/
-- index-writer.ts maybeAnalyze), and on the embedded database that statement holds the one
-- connection: at a large file's completion it was the slowest thing a request could wait behind
-- (52-151 ms for the 40,617 pages of bench:ingest's Markdown file). first_tf, first_dl and inc
-- were a large share of it (`ANALYZE posting_pages (first_tf, first_dl, inc)` alone took 56 ms in
-- a run where the whole ANALYZE took 86 ms, ~20 ms of either being the row sample; afterwards the
-- three alone 1-2 ms; scripts/write-path-profile.ts --maintenance), and no statement filters on them: lexical
-- search only orders a term's pages by (first_tf DESC, first_dl), which the level index
-- (knowledge_id, term, first_tf DESC, first_dl) gives in order, and reads inc. The columns that
-- plans do depend on keep their statistics: knowledge_id and term (the level index's keys) and
-- file_id (deletes and the file filter). The same was done for the posting arrays
-- (20261209200000, 20261213020000).
ALTER TABLE "posting_pages"
  ALTER COLUMN "first_tf" SET STATISTICS 0,
  ALTER COLUMN "first_dl" SET STATISTICS 0,
  ALTER COLUMN "inc" SET STATISTICS 0;
-- Statistics already gathered on them are dropped with the next ANALYZE of the table.
