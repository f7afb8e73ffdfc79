-- BM25 as a PL/pgSQL function: PostgreSQL caches the plan of a PL/pgSQL statement per session,
-- so the large statement below is planned once per connection instead of on every query (its
-- planning took ~2 ms, four times its execution on a 2,000-chunk KB). Called by
-- lib/retrieval/lexical.ts, which documents the arguments and the result rows.
--
-- $1 kb ids, $2 distinct query terms, $3 their qtf, $4 k1, $5 b, $6 hits returned, $7 postings
-- read per KB and term (the common-term cut), $8 candidates completed with the capped terms,
-- $9 file ids (NULL = whole KBs), $10 file status required (NULL = any), $11 BM25+ delta.
-- Rows: ('h', chunk_id, score, matched terms) per hit; ('t', term, df, 0) per term;
-- ('s', '', N, avgdl) once.
CREATE FUNCTION "retrieval_lexical_search"(
  text[], text[], integer[], float8, float8, integer, integer, integer, text[], text, float8
) RETURNS TABLE (kind text, key text, a float8, b float8)
LANGUAGE plpgsql STABLE
-- A generic plan from the first call on: its shape is fixed by the statement (index walks
-- under LIMIT per term), so planning per call would buy nothing.
SET plan_cache_mode = force_generic_plan
AS $fn$
BEGIN
  RETURN QUERY
  WITH q AS (
    SELECT t.term, t.qtf FROM unnest($2, $3) AS t(term, qtf)
  ), st AS (
    -- N and avgdl of the searched KBs, kept exact by triggers on chunks (migration 20261202010000).
    SELECT coalesce(sum(k.chunk_count), 0)::float8 AS n,
           (coalesce(sum(k.token_sum), 0)::float8 / greatest(coalesce(sum(k.chunk_count), 0), 1))::float8 AS avgdl
    FROM retrieval_kb_stats k WHERE k.knowledge_id = ANY($1)
  ), w AS MATERIALIZED (
    -- df of each query term over the searched KBs, kept exact by triggers on chunk_terms (migration 20261202020000).
    SELECT q.term, d.df, q.qtf * ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5)) AS w, d.df > $7 AS capped
    FROM q CROSS JOIN st
    CROSS JOIN LATERAL (SELECT coalesce(sum(ts.df), 0)::float8 AS df FROM retrieval_term_stats ts
                        WHERE ts.knowledge_id = ANY($1) AND ts.term = q.term) d
  ), p AS MATERIALIZED (
    -- Every posting of a term with at most $7 of them in a KB; the best $7 (impact order) otherwise.
    SELECT x.chunk_id, x.file_id, w.w, w.capped, x.tf, x.doc_len
    FROM w CROSS JOIN unnest($1) AS kb(id)
    CROSS JOIN LATERAL (
      SELECT ct.chunk_id, ct.file_id, ct.tf, ct.doc_len FROM chunk_terms ct
      WHERE ct.knowledge_id = kb.id AND ct.term = w.term AND ($9 IS NULL OR ct.file_id = ANY($9))
      ORDER BY ct.tf DESC, ct.doc_len, ct.chunk_id
      LIMIT $7
    ) x
    WHERE w.df > 0
  ), c AS MATERIALIZED (
    -- Lower bound: every uncapped term is exact; a capped term counts where its posting was read.
    -- The status filter is a hashed NOT IN over the (few) files in another status.
    SELECT p.chunk_id,
           sum(p.w * (p.tf * ($4 + 1) / (p.tf + $4 * (1 - $5 + $5 * p.doc_len / greatest(st.avgdl, 1))) + $11)) AS lb,
           sum(CASE WHEN p.capped THEN 0
                    ELSE p.w * (p.tf * ($4 + 1) / (p.tf + $4 * (1 - $5 + $5 * p.doc_len / greatest(st.avgdl, 1))) + $11) END) AS exact,
           count(*) FILTER (WHERE NOT p.capped) AS matched
    FROM p CROSS JOIN st
    WHERE $10 IS NULL
       OR p.file_id NOT IN (SELECT f.id FROM knowledge_files f WHERE f.knowledge_id = ANY($1) AND f.status <> $10)
    GROUP BY p.chunk_id
    ORDER BY lb DESC, p.chunk_id
    LIMIT $8
  ), s AS (
    -- The capped terms' exact contributions for those candidates (primary-key lookups).
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
  SELECT 's'::text, ''::text, st.n, st.avgdl FROM st;
END;
$fn$;
