-- retrieval_lexical_search, second version (arguments as documented in
-- 20261202030000_lexical_function). Two changes, both for the chat's time to references:
--
-- 1. It returns each hit's chunk with it (its KB, file, file name, pages, heading path, content
--    and tokens), so a knowledge-base search is one statement instead of two: the separate fetch
--    of the hits' chunks cost about as much as sending the statement itself (~0.3 ms of a ~2.5 ms
--    chat turn on the embedded database). A hit whose chunk or file was deleted meanwhile is not
--    returned. The other rows ('t', 's', 'r') carry NULL in the new columns, which are named
--    hit_* so that they cannot clash with the tables' columns inside the body (PL/pgSQL output
--    names are variables there).
-- 2. When even a perfect match on all capped (very common) terms stays below $12 of the query's
--    weight, each capped term reads only as many of its best postings as hits are returned ($6)
--    instead of as many as candidates ($8). Such chunks calibrate near 0, far below any
--    min_score; they only fill the list when the other terms find fewer than $6 chunks (a
--    question with three terms found in every chunk of a 2,000-chunk KB: 1.9 -> 0.8 ms, same
--    hits).
--
-- A function's result type cannot be changed in place, so it is dropped and created again; the
-- body is otherwise that of 20261202030000_lexical_function (PostgreSQL keeps no history of a
-- function's body, so each version is written out whole).
DROP FUNCTION "retrieval_lexical_search"(
  text[], text[], integer[], float8, float8, integer, integer, integer, text[], text, float8, float8, float8, integer
);

CREATE FUNCTION "retrieval_lexical_search"(
  text[], text[], integer[], float8, float8, integer, integer, integer, text[], text, float8, float8, float8, integer
) RETURNS TABLE (kind text, key text, a float8, b float8, hit_knowledge_id text, hit_file_id text,
                hit_file_name text, hit_page_start integer, hit_page_end integer, hit_heading_path text,
                hit_content text, hit_tokens text)
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
    SELECT x.chunk_id, x.file_id, w.term, w.w, x.tf, x.doc_len
    FROM w CROSS JOIN unnest($1) AS kb(id)
    CROSS JOIN LATERAL (
      SELECT ct.chunk_id, ct.file_id, ct.tf, ct.doc_len FROM chunk_terms ct
      WHERE ct.knowledge_id = kb.id AND ct.term = w.term AND ($9 IS NULL OR ct.file_id = ANY($9))
    ) x
    WHERE w.df > 0 AND NOT w.capped AND x.file_id NOT IN (SELECT id FROM bad)
  ), multi AS MATERIALIZED (
    -- Context can only come from another matched chunk of the same file.
    SELECT pr.file_id FROM pr WHERE $13 > 0 GROUP BY pr.file_id HAVING count(DISTINCT pr.chunk_id) > 1
  ), pp AS MATERIALIZED (
    -- Those files' postings with their chunk's position ((file_id, ordinal) is unique).
    SELECT pr.*, (SELECT ch.ordinal FROM chunks ch WHERE ch.id = pr.chunk_id) AS ordinal
    FROM pr WHERE pr.file_id IN (SELECT multi.file_id FROM multi)
  ), ctx AS MATERIALIZED (
    -- Context weight per position: each posting covers the $14 positions on either side; a
    -- term counts once per position and not at all where the chunk holds it itself. (Grouping
    -- instead of joining keeps this linear: the planner cannot see inside these CTEs.)
    SELECT z.file_id, z.ordinal, sum(z.w) AS bonus FROM (
      SELECT pp.file_id, g.t AS ordinal, pp.term, max(pp.w) AS w, bool_or(g.t = pp.ordinal) AS own
      FROM pp CROSS JOIN LATERAL generate_series(pp.ordinal - $14, pp.ordinal + $14) AS g(t)
      GROUP BY pp.file_id, g.t, pp.term
    ) z WHERE NOT z.own GROUP BY z.file_id, z.ordinal
  ), rare AS MATERIALIZED (
    -- Exact score of each chunk from the uncapped terms plus its context weight, grouped by
    -- chunk (or by position, which is the same chunk, where context applies).
    SELECT max(u.chunk_id) AS chunk_id, sum(u.part) + $13 * sum(u.bonus) AS score, sum(u.matched) AS matched
    FROM (
      SELECT pr.chunk_id AS key, pr.chunk_id,
             pr.w * (pr.tf * ($4 + 1) / (pr.tf + $4 * (1 - $5 + $5 * pr.doc_len / greatest(st.avgdl, 1))) + $11) AS part,
             0::float8 AS bonus, 1 AS matched
      FROM pr CROSS JOIN st WHERE pr.file_id NOT IN (SELECT multi.file_id FROM multi)
      UNION ALL
      SELECT pp.file_id || '/' || pp.ordinal, pp.chunk_id,
             pp.w * (pp.tf * ($4 + 1) / (pp.tf + $4 * (1 - $5 + $5 * pp.doc_len / greatest(st.avgdl, 1))) + $11),
             0, 1
      FROM pp CROSS JOIN st
      UNION ALL
      SELECT ctx.file_id || '/' || ctx.ordinal, NULL, 0, ctx.bonus, 0 FROM ctx
    ) u
    GROUP BY u.key
    HAVING count(u.chunk_id) > 0
  ), enough AS MATERIALIZED (
    -- Do at least $6 chunks already reach capped_max through the uncapped terms? (A chunk
    -- holding only capped terms gets no context weight, so capped_max bounds it.)
    SELECT count(*) >= $6 AS yes FROM (
      SELECT 1 FROM rare CROSS JOIN bound WHERE rare.score >= bound.capped_max LIMIT $6
    ) strong
  ), pc AS MATERIALIZED (
    -- The best postings (impact order) of each capped term, as many as the bounds above allow.
    SELECT x.chunk_id, x.file_id, w.term, w.w, true AS capped, x.tf, x.doc_len
    FROM w CROSS JOIN unnest($1) AS kb(id) CROSS JOIN bound CROSS JOIN enough
    CROSS JOIN LATERAL (
      SELECT ct.chunk_id, ct.file_id, ct.tf, ct.doc_len FROM chunk_terms ct
      WHERE ct.knowledge_id = kb.id AND ct.term = w.term AND ($9 IS NULL OR ct.file_id = ANY($9))
      ORDER BY ct.tf DESC, ct.doc_len, ct.chunk_id
      LIMIT CASE WHEN enough.yes THEN 0
                 WHEN bound.capped_max < $12 * bound.mass THEN least($7, $6)
                 ELSE $7 END
    ) x
    WHERE w.df > 0 AND w.capped AND x.file_id NOT IN (SELECT id FROM bad)
  ), c AS MATERIALIZED (
    -- Candidates: lower bound = exact uncapped score + context + the capped postings read.
    SELECT coalesce(r.chunk_id, k.chunk_id) AS chunk_id,
           coalesce(r.score, 0) + coalesce(k.part, 0) AS lb,
           coalesce(r.score, 0) AS exact,
           coalesce(r.matched, 0) AS matched
    FROM rare r
    FULL JOIN (
      SELECT pc.chunk_id, sum(pc.w * (pc.tf * ($4 + 1) / (pc.tf + $4 * (1 - $5 + $5 * pc.doc_len / greatest(st.avgdl, 1))) + $11)) AS part
      FROM pc CROSS JOIN st GROUP BY pc.chunk_id
    ) k ON k.chunk_id = r.chunk_id
    ORDER BY lb DESC, chunk_id
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
  SELECT 'h'::text, s.chunk_id, s.score::float8, s.matched::float8, ch.knowledge_id, ch.file_id, f.name,
         ch.page_start, ch.page_end, ch.heading_path, ch.content, ch.tokens
  FROM s JOIN chunks ch ON ch.id = s.chunk_id JOIN knowledge_files f ON f.id = ch.file_id
  UNION ALL
  SELECT 't'::text, w.term, w.df, 0::float8, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM w
  UNION ALL
  SELECT 's'::text, ''::text, st.n, st.avgdl, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM st
  UNION ALL
  SELECT 'r'::text, ''::text, (SELECT count(*) FROM pr)::float8, (SELECT count(*) FROM pc)::float8,
         NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL;
END;
$fn$;
