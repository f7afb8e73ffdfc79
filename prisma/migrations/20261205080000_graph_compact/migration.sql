-- Knowledge graph, compact storage and a faster write (issue 19, docs/bench-graph.md).
--
-- 1. The graph stage now writes each entity's mention count and each relation's support count
--    with the rows (upserts that add the file's counts), computed from the rows it inserts. The
--    statement-level INSERT triggers updated every entity and relation a second time after each
--    insert (a new tuple version and index entries per row): they go. The DELETE triggers stay:
--    chunk deletion (reparse, file and KB delete) still decrements the counts and removes what no
--    chunk supports any more.
-- 2. Columns nothing reads: a mention's KB and file and its surface text (the chunk's content at
--    [start, end) is the surface), a support's file (its chunk's). Dropped, rows are ~35 % smaller.

DROP TRIGGER "graph_mentions_insert_count" ON "graph_mentions";
DROP TRIGGER "graph_supports_insert_count" ON "graph_relation_supports";

ALTER TABLE "graph_mentions"
  DROP COLUMN "knowledge_id",
  DROP COLUMN "file_id",
  DROP COLUMN "surface";

ALTER TABLE "graph_relation_supports"
  DROP COLUMN "file_id";
