-- graph_mentions: a plain index on entity_id instead of the primary key (entity_id, chunk_id)
-- (issue 22 item 3, storage).
--
-- Why. The primary key was as large as the table itself (12.2 MB beside 12.6 MB of rows after
-- bench:ingest's corpus, docs/bench-ingest-under-load.md, session 18): every entry repeats the
-- chunk's 25-character id, and a unique index cannot share entries. What reads mentions by key
-- reads them by entity (an entity's passages, a relation's supports through its two ends), and
-- by chunk (deleting a file's graph: graph_mentions_chunk_id_idx); nothing looks one pair up.
-- A non-unique B-tree on entity_id stores each entity once with the list of its rows
-- (PostgreSQL's deduplication), a fraction of the size.
-- Uniqueness of (entity, chunk) is the graph stage's own: it is the only writer, it deletes a
-- file's mention rows before writing them again (lib/graph/store.ts, DELETE_FILE_GRAPH_SQL),
-- and it builds one row per (entity, chunk) of a group (lib/graph/store.ts, Group).

ALTER TABLE "graph_mentions" DROP CONSTRAINT "graph_mentions_pkey";
CREATE INDEX "graph_mentions_entity_id_idx" ON "graph_mentions" ("entity_id");
