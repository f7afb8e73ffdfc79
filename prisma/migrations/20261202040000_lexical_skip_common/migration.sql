-- BM25 reads fewer postings of very common ("capped") terms, without changing the best hits:
--  * when at least $6 chunks found through the other terms already score at least the most any
--    chunk could get from the capped terms alone, a chunk holding only capped terms cannot reach
--    the top $6, so their postings are not read at all (their exact contributions are still
--    added to the candidates by primary-key lookups, as before);
--  * otherwise, when even a perfect match on all capped terms stays below $12 of the query's
--    weight (chunks calibrated near 0, far below any min_score), each capped term reads only as
--    many postings as there are candidates ($8) instead of $7.
-- Same arguments as before plus $12; the same result rows (see 20261202030000_lexical_function)
-- plus ('r', '', postings read of uncapped terms, postings read of capped terms) once.
DROP FUNCTION "retrieval_lexical_search"(text[], text[], integer[], float8, float8, integer, integer, integer, text[], text, float8);

CREATE FUNCTION "retrieval_lexical_search"(
  text[], text[], integer[], float8, float8, integer, integer, integer, text[], text, float8, float8
) RETURNS TABLE (kind text, key text, a float8, b float8)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
AS $fn$
BEGIN
  RETURN QUERY
  WITH q AS (
    SELECT t.term, t.qtf FROM unnest($2, $3) AS t(term, qtf)
  ), st AS (
    SELECT coalesce(sum(k.chunk_count), 0)::float8 AS n,
           (coalesce(sum(k.token_sum), 0)::float8 / greatest(coalesce(sum(k.chunk_count), 0), 1))::float8 AS avgdl
    FROM retrieval_kb_stats k WHERE k.knowledge_id = ANY($1)
  ), w AS MATERIALIZED (
    SELECT q.term, d.df, q.qtf * ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5)) AS w, d.df > $7 AS capped
    FROM q CROSS JOIN st
    CROSS JOIN LATERAL (SELECT coalesce(sum(ts.df), 0)::float8 AS df FROM retrieval_term_stats ts
                        WHERE ts.knowledge_id = ANY($1) AND ts.term = q.term) d
  ), bound AS MATERIALIZED (
    -- The most a chunk can get from the capped terms (term weight < w·(k1 + 1) + δ), and the
    -- query's whole weight (terms absent from the KBs included, as in calibration).
    SELECT coalesce(sum(w.w * ($4 + 1 + $11)) FILTER (WHERE w.capped AND w.df > 0), 0) AS capped_max,
           coalesce(sum(w.w), 0) AS mass
    FROM w
  ), bad AS MATERIALIZED (
    -- Files whose chunks must not be returned (not in status $10); few, so a hashed NOT IN.
    -- "< or >" instead of "<>" lets both halves be range scans of the (knowledge_id, status)
    -- index instead of reading every file of the KB.
    SELECT f.id FROM knowledge_files f
    WHERE $10 IS NOT NULL AND f.knowledge_id = ANY($1) AND (f.status < $10 OR f.status > $10)
  ), pr AS MATERIALIZED (
    -- Every posting of the uncapped terms (at most $7 per KB and term by definition).
    SELECT x.chunk_id, x.file_id, w.w, false AS capped, x.tf, x.doc_len
    FROM w CROSS JOIN unnest($1) AS kb(id)
    CROSS JOIN LATERAL (
      SELECT ct.chunk_id, ct.file_id, ct.tf, ct.doc_len FROM chunk_terms ct
      WHERE ct.knowledge_id = kb.id AND ct.term = w.term AND ($9 IS NULL OR ct.file_id = ANY($9))
    ) x
    WHERE w.df > 0 AND NOT w.capped AND x.file_id NOT IN (SELECT id FROM bad)
  ), enough AS MATERIALIZED (
    -- Do at least $6 chunks already reach capped_max through the uncapped terms?
    SELECT count(*) >= $6 AS yes FROM (
      SELECT 1 FROM pr CROSS JOIN st CROSS JOIN bound
      GROUP BY pr.chunk_id, bound.capped_max
      HAVING sum(pr.w * (pr.tf * ($4 + 1) / (pr.tf + $4 * (1 - $5 + $5 * pr.doc_len / greatest(st.avgdl, 1))) + $11)) >= bound.capped_max
      LIMIT $6
    ) strong
  ), pc AS MATERIALIZED (
    -- The best postings (impact order) of each capped term, as many as the bounds above allow.
    SELECT x.chunk_id, x.file_id, w.w, true AS capped, x.tf, x.doc_len
    FROM w CROSS JOIN unnest($1) AS kb(id) CROSS JOIN bound CROSS JOIN enough
    CROSS JOIN LATERAL (
      SELECT ct.chunk_id, ct.file_id, ct.tf, ct.doc_len FROM chunk_terms ct
      WHERE ct.knowledge_id = kb.id AND ct.term = w.term AND ($9 IS NULL OR ct.file_id = ANY($9))
      ORDER BY ct.tf DESC, ct.doc_len, ct.chunk_id
      LIMIT CASE WHEN enough.yes THEN 0
                 WHEN bound.capped_max < $12 * bound.mass THEN least($7, $8)
                 ELSE $7 END
    ) x
    WHERE w.df > 0 AND w.capped AND x.file_id NOT IN (SELECT id FROM bad)
  ), p AS (
    SELECT * FROM pr UNION ALL SELECT * FROM pc
  ), c AS MATERIALIZED (
    SELECT p.chunk_id,
           sum(p.w * (p.tf * ($4 + 1) / (p.tf + $4 * (1 - $5 + $5 * p.doc_len / greatest(st.avgdl, 1))) + $11)) AS lb,
           sum(CASE WHEN p.capped THEN 0
                    ELSE p.w * (p.tf * ($4 + 1) / (p.tf + $4 * (1 - $5 + $5 * p.doc_len / greatest(st.avgdl, 1))) + $11) END) AS exact,
           count(*) FILTER (WHERE NOT p.capped) AS matched
    FROM p CROSS JOIN st
    GROUP BY p.chunk_id
    ORDER BY lb DESC, p.chunk_id
    LIMIT $8
  ), s AS (
    SELECT c.chunk_id,
           c.exact + coalesce(sum(w.w * (ct.tf * ($4 + 1) / (ct.tf + $4 * (1 - $5 + $5 * ct.doc_len / greatest(st.avgdl, 1))) + $11)), 0) AS score,
           c.matched + count(ct.chunk_id) AS matched
    FROM c CROSS JOIN st
    LEFT JOIN w ON w.capped
    LEFT JOIN chunk_terms ct ON ct.chunk_id = c.chunk_id AND ct.term = w.term
    GROUP BY c.chunk_id, c.exact, c.matched
    ORDER BY score DESC, c.chunk_id
    LIMIT $6
  )
  SELECT 'h'::text, s.chunk_id, s.score::float8, s.matched::float8 FROM s
  UNION ALL
  SELECT 't'::text, w.term, w.df, 0::float8 FROM w
  UNION ALL
  SELECT 's'::text, ''::text, st.n, st.avgdl FROM st
  UNION ALL
  SELECT 'r'::text, ''::text, (SELECT count(*) FROM pr)::float8, (SELECT count(*) FROM pc)::float8;
END;
$fn$;
