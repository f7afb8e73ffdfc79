-- The trigram index of the chunks' text (grep_chunks) keeps a 1 MB pending list instead of
-- PostgreSQL's 4 MB default (issue 22 item 3, storage).
--
-- Why. A GIN index with fastupdate collects new entries in a pending list, uncompressed, and
-- merges them into its tree when the list passes gin_pending_list_limit or when VACUUM runs. On
-- a server autovacuum does the merging in the background; embedded PGlite has no autovacuum, so
-- every merge happens inside a writer's insert, and up to 4 MB of unmerged entries, and the pages
-- they leave behind, stay in the index for good. Measured on bench:ingest's corpus (29,666 chunks
-- inserted 300 at a time, two files interleaved, docs/bench-ingest-under-load.md, session 18):
-- the index grew to 19.3 MB with the default, 15.6 MB with 1 MB, 14.7 MB with 512 kB, 13.1 MB
-- without a pending list, 10.7 MB rebuilt from scratch. Insert time: 7.2 / 9.6 s (default) and
-- 7.4 / 8.1 s (1 MB) in two interleaved runs, 8.1 / 9.9 s (512 kB), 33.7 s without a pending
-- list (each entry placed in the tree one at a time). 1 MB keeps the batching and is no slower.
-- New entries follow the setting; an existing index keeps what it holds (rebuilding it here
-- would hold the start-up for as long as the index takes to build).

ALTER INDEX "chunks_content_trgm_idx" SET (gin_pending_list_limit = 1024);
