-- retrieval_lexical_search, the same function as 20261206000000_posting_pages with one window frame
-- changed (same rows, same hits and scores).
--
-- Why. A capped term's pages are read in level order and each page's "before" is the sum of inc
-- over the pages of strictly better levels. It was written as RANGE ... CURRENT ROW EXCLUDE GROUP:
-- with an exclusion clause PostgreSQL cannot carry the running sum from one row to the next and
-- re-aggregates the whole frame for every row, so a term whose best postings span ~1,000 pages cost
-- ~1,000² additions over tuples carrying the pages' arrays. At 200,000 chunks that was ~70 ms per
-- capped term and ~90 % of a slow query (EXPLAIN ANALYZE in docs/benchmarks-retrieval.md, session 15).
-- GROUPS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING is the same sum (every peer group before the
-- current row's), and with a fixed frame start and no exclusion rows only enter the frame, so the
-- sum is carried forward: linear in the pages read.
CREATE OR REPLACE FUNCTION "retrieval_lexical_search"(
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
    SELECT x.chunk_id, x.file_id, w.term, w.w, x.tf, x.doc_len, x.ordinal
    FROM w CROSS JOIN unnest($1) AS kb(id)
    CROSS JOIN LATERAL (
      SELECT e.chunk_id, p.file_id, e.tf, e.doc_len, e.ordinal FROM posting_pages p
      CROSS JOIN LATERAL unnest(p.chunk_ids, p.tfs, p.doc_lens, p.ordinals) AS e(chunk_id, tf, doc_len, ordinal)
      WHERE p.knowledge_id = kb.id AND p.term = w.term AND ($9 IS NULL OR p.file_id = ANY($9))
    ) x
    WHERE w.df > 0 AND NOT w.capped AND x.file_id NOT IN (SELECT id FROM bad)
  ), multi AS MATERIALIZED (
    -- Context can only come from another matched chunk of the same file.
    SELECT pr.file_id FROM pr WHERE $13 > 0 GROUP BY pr.file_id HAVING count(DISTINCT pr.chunk_id) > 1
  ), pp AS MATERIALIZED (
    -- Those files' postings with their chunk's position ((file_id, ordinal) is unique).
    SELECT pr.* FROM pr WHERE pr.file_id IN (SELECT multi.file_id FROM multi)
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
    -- The best postings (tf DESC, doc_len, chunk_id) of each capped term, as many as the bounds
    -- above allow (n): its pages in level order, those whose earlier levels' inc sum to less than
    -- n (they hold the best n postings; see the header), unnested and cut to n.
    SELECT x.chunk_id, x.file_id, w.term, w.w, true AS capped, x.tf, x.doc_len
    FROM w CROSS JOIN unnest($1) AS kb(id)
    CROSS JOIN LATERAL (
      SELECT CASE WHEN enough.yes THEN 0
                  WHEN bound.capped_max < $12 * bound.mass THEN least($7, $6)
                  ELSE $7 END AS n
      FROM bound CROSS JOIN enough
    ) lim
    CROSS JOIN LATERAL (
      SELECT e.chunk_id, pg.file_id, e.tf, e.doc_len
      FROM (
        SELECT r.file_id, r.chunk_ids, r.tfs, r.doc_lens,
               coalesce(sum(r.inc) OVER (ORDER BY r.first_tf DESC, r.first_dl
                                         GROUPS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
        FROM (
          SELECT p.file_id, p.chunk_ids, p.tfs, p.doc_lens, p.inc, p.first_tf, p.first_dl FROM posting_pages p
          WHERE p.knowledge_id = kb.id AND p.term = w.term AND ($9 IS NULL OR p.file_id = ANY($9))
          ORDER BY p.first_tf DESC, p.first_dl
          FETCH FIRST (lim.n) ROWS WITH TIES
        ) r
      ) pg
      CROSS JOIN LATERAL unnest(pg.chunk_ids, pg.tfs, pg.doc_lens) AS e(chunk_id, tf, doc_len)
      WHERE pg.before < lim.n
      ORDER BY e.tf DESC, e.doc_len, e.chunk_id
      LIMIT lim.n
    ) x
    WHERE w.df > 0 AND w.capped AND lim.n > 0 AND x.file_id NOT IN (SELECT id FROM bad)
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
  ), ct AS (
    -- The capped terms' tf in each candidate, counted in its tokens (split once per candidate;
    -- array_positions compares without building strings: ~3x faster than counting with replace()).
    SELECT c.chunk_id, w.term, ch.token_count AS doc_len, cardinality(array_positions(d.toks, w.term)) AS tf
    FROM c JOIN chunks ch ON ch.id = c.chunk_id
    CROSS JOIN LATERAL (SELECT string_to_array(ch.tokens, ' ') AS toks) d
    JOIN w ON w.capped
    WHERE EXISTS (SELECT 1 FROM w WHERE w.capped)
  ), s AS (
    SELECT c.chunk_id,
           c.exact + coalesce(sum(w.w * (ct.tf * ($4 + 1) / (ct.tf + $4 * (1 - $5 + $5 * ct.doc_len / greatest(st.avgdl, 1))) + $11)), 0) AS score,
           c.matched + count(ct.chunk_id) AS matched
    FROM c CROSS JOIN st
    LEFT JOIN w ON w.capped
    LEFT JOIN ct ON ct.chunk_id = c.chunk_id AND ct.term = w.term AND ct.tf > 0
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
