-- Knowledge graph: the entity search as a function that plans its trigram arms on the index
-- (issue 19, docs/bench-graph.md "Session 11").
--
-- EXPLAIN ANALYZE on the cmrc2018 KB showed the search's similarity arm (norm_name % q) as a
-- sequential scan that computed similarity() for every entity of the table: 33-150 ms for 1,820
-- to 3,383 entities, most of a query_knowledge_graph call, against 17 ms through the trigram GIN
-- index. The planner prices similarity() like a comparison (pg_trgm declares no cost, so 1 ×
-- cpu_operator_cost) while each call builds the trigrams of both strings; a table of a few dozen
-- pages then looks cheaper to scan than to probe. ANALYZE did not change that (the equality arm
-- went to a sequential scan as well). The function's SET clause takes sequential scans off the
-- table while its body is planned: every arm here has an index that answers it, so nothing is
-- lost, and no other statement of the session is affected.
--
-- Arms (as before, in lib/graph/query.ts): "named inside the query" as equality lookups of the
-- query's substrings ($5) in the (knowledge_id, norm_name) key; trigram similarity and "contains
-- the query" ($4, a LIKE pattern) through the trigram GIN index, without a KB condition (OFFSET 0
-- keeps the planner from pushing $1's filter into them, which made it read the KB's entities by
-- its key and compute similarity() for each). Ids are returned as text, as the API sends them.
CREATE FUNCTION "graph_search_entities"(text[], text, integer, text, text[])
RETURNS TABLE ("id" text, "knowledge_id" text, "name" text, "type" text, "aliases" text[], "description" text, "mention_count" integer, "score" double precision)
LANGUAGE sql STABLE
SET enable_seqscan = off
AS $$
  SELECT e.id::text, e.knowledge_id, e.name, e.type, e.aliases, e.description, e.mention_count,
         (CASE
            WHEN e.norm_name = $2 THEN 1.0
            WHEN strpos(e.norm_name, $2) > 0 THEN 0.6 + 0.3 * length($2)::float / length(e.norm_name)
            WHEN length(e.norm_name) >= 2 AND strpos($2, e.norm_name) > 0 THEN 0.5 + 0.3 * length(e.norm_name)::float / length($2)
            ELSE similarity(e.norm_name, $2) * 0.8 END)::float8 AS score
    FROM (SELECT g.id, g.knowledge_id, g.name, g.type, g.aliases, g.description, g.mention_count, g.norm_name
            FROM graph_entities g WHERE g.knowledge_id = ANY($1) AND g.norm_name = ANY($5)
          UNION
          (SELECT g.id, g.knowledge_id, g.name, g.type, g.aliases, g.description, g.mention_count, g.norm_name
             FROM graph_entities g WHERE g.norm_name % $2 OFFSET 0)
          UNION
          (SELECT g.id, g.knowledge_id, g.name, g.type, g.aliases, g.description, g.mention_count, g.norm_name
             FROM graph_entities g WHERE g.norm_name LIKE $4 OFFSET 0)) e
   WHERE e.knowledge_id = ANY($1)
   ORDER BY 8 DESC, e.mention_count DESC, e.id
   LIMIT $3
$$;
