-- Posting pages hold their postings in one array (issue 22 item 3, storage).
--
-- Why. A page row carried three int[] (tfs, doc_lens, ordinals): each array has its own ~21-byte
-- header, and a page of real text holds few postings (8.9 on average on bench:ingest's corpus,
-- 121,307 pages for 1,082,259 postings), so those headers were a sixth of the table. Now one
-- int[] "postings": the page's n term frequencies, then its n chunk lengths, then its n
-- ordinals (3n elements); the order within each third is the impact order as before.
--
-- What changes.
--  * posting_count / posting_tfs / posting_doc_lens / posting_ordinals: the thirds, as inlinable
--    SQL functions (slices of the array), used by every reader below and by lib/tools/grep-chunks.
--  * posting_pages: "postings" replaces the three arrays; the table is rewritten (the dropped
--    columns' bytes come back at once); no planner statistics on the array (as on the former
--    arrays, migration 20261209200000). Triggers are off while the rows are copied: the document
--    frequencies do not change.
--  * posting_pages_stats_apply and posting_pages_follow_chunks read the thirds.
--  * retrieval_lexical_search, sixth version: the body of 20261212000000_posting_pages_ordinals
--    with each page's postings read through the functions above. Arguments, result rows, scores
--    and order are unchanged.
-- The index writer (lib/retrieval/index-writer.ts) writes the packed array from now on.

CREATE FUNCTION "posting_count"(integer[]) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN cardinality($1) / 3;
CREATE FUNCTION "posting_tfs"(integer[]) RETURNS integer[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN $1[1:cardinality($1) / 3];
CREATE FUNCTION "posting_doc_lens"(integer[]) RETURNS integer[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN $1[cardinality($1) / 3 + 1:cardinality($1) / 3 * 2];
CREATE FUNCTION "posting_ordinals"(integer[]) RETURNS integer[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN $1[cardinality($1) / 3 * 2 + 1:cardinality($1)];

ALTER TABLE "posting_pages" ADD COLUMN "postings" INTEGER[];
ALTER TABLE "posting_pages" DISABLE TRIGGER USER;
UPDATE "posting_pages" SET "postings" = "tfs" || "doc_lens" || "ordinals";
ALTER TABLE "posting_pages" ENABLE TRIGGER USER;
-- "inc" + 0 is not a plain column reference, so this ALTER rewrites the table (as in
-- 20261212000000): every row is rebuilt without the dropped columns' bytes and the copies'.
ALTER TABLE "posting_pages" DROP COLUMN "tfs", DROP COLUMN "doc_lens", DROP COLUMN "ordinals",
  ALTER COLUMN "postings" SET NOT NULL, ALTER COLUMN "postings" SET STATISTICS 0,
  ALTER COLUMN "inc" TYPE INTEGER USING "inc" + 0;

CREATE OR REPLACE FUNCTION "posting_pages_stats_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A term's df in a KB is the number of postings of its pages. Rows are upserted in key order so
  -- concurrent writers of one KB cannot deadlock.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "retrieval_term_stats" AS s ("knowledge_id", "term", "df")
    SELECT "knowledge_id", "term", sum(posting_count("postings")) FROM new_rows GROUP BY "knowledge_id", "term" ORDER BY "knowledge_id", "term"
    ON CONFLICT ("knowledge_id", "term") DO UPDATE SET "df" = s."df" + EXCLUDED."df";
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE "retrieval_term_stats" s SET "df" = s."df" - o.c
    FROM (SELECT "knowledge_id", "term", sum(posting_count("postings")) AS c FROM old_rows GROUP BY "knowledge_id", "term" ORDER BY "knowledge_id", "term") o
    WHERE s."knowledge_id" = o."knowledge_id" AND s."term" = o."term";
    DELETE FROM "retrieval_term_stats" s USING (SELECT DISTINCT "knowledge_id", "term" FROM old_rows) o
    WHERE s."knowledge_id" = o."knowledge_id" AND s."term" = o."term" AND s."df" <= 0;
  ELSE -- UPDATE
    INSERT INTO "retrieval_term_stats" AS s ("knowledge_id", "term", "df")
    SELECT d."knowledge_id", d."term", sum(d.c) FROM (
      SELECT "knowledge_id", "term", posting_count("postings")::bigint AS c FROM new_rows
      UNION ALL
      SELECT "knowledge_id", "term", -posting_count("postings")::bigint FROM old_rows
    ) d GROUP BY d."knowledge_id", d."term" HAVING sum(d.c) <> 0 ORDER BY d."knowledge_id", d."term"
    ON CONFLICT ("knowledge_id", "term") DO UPDATE SET "df" = s."df" + EXCLUDED."df";
    DELETE FROM "retrieval_term_stats" s WHERE s."df" <= 0
      AND (s."knowledge_id", s."term") IN (SELECT "knowledge_id", "term" FROM old_rows);
  END IF;
  RETURN NULL;
END;
$$;

-- Postings follow their chunks (as in 20261212000000_posting_pages_ordinals), reading the thirds.
CREATE OR REPLACE FUNCTION "posting_pages_follow_chunks"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  gone_files TEXT[];
  hit_files TEXT[];
  hit_terms TEXT[];
BEGIN
  -- Files with no chunk left: all their pages, through the file index.
  DELETE FROM "posting_pages" p
  USING (SELECT DISTINCT o."file_id" FROM old_rows o
          WHERE NOT EXISTS (SELECT 1 FROM "chunks" c WHERE c."file_id" = o."file_id")) f
  WHERE p."file_id" = f."file_id";

  -- Some chunks of a file that keeps others (no product path does this; kept exact anyway): take
  -- them out of their pages, in place (the arrays stay in impact order). A page left empty goes.
  -- Every page of the same file and term then gets inc = 1 (always valid: a page's own best
  -- posting), since the previous page's size, which inc stood for, may have shrunk, and its level
  -- is that of its (new) first posting.
  -- (gone: per such file, the ordinals of its deleted chunks; old_rows is readable by every
  -- statement of this function.)
  SELECT array_agg(g."file_id") INTO gone_files
  FROM (SELECT DISTINCT o."file_id" FROM old_rows o WHERE EXISTS (SELECT 1 FROM "chunks" c WHERE c."file_id" = o."file_id")) g;
  IF gone_files IS NULL THEN
    RETURN NULL;
  END IF;
  SELECT array_agg(h."file_id"), array_agg(h."term") INTO hit_files, hit_terms
  FROM (SELECT DISTINCT p."file_id", p."term"
          FROM "posting_pages" p
          JOIN (SELECT o."file_id", array_agg(o."ordinal") AS ords FROM old_rows o WHERE o."file_id" = ANY(gone_files) GROUP BY o."file_id") g
            ON g."file_id" = p."file_id"
         WHERE p."file_id" = ANY(gone_files) AND posting_ordinals(p."postings") && g.ords) h;
  IF hit_files IS NULL THEN
    RETURN NULL;
  END IF;
  DELETE FROM "posting_pages" p
  USING (SELECT o."file_id", array_agg(o."ordinal") AS ords FROM old_rows o WHERE o."file_id" = ANY(gone_files) GROUP BY o."file_id") g
  WHERE p."file_id" = ANY(gone_files) AND p."file_id" = g."file_id" AND posting_ordinals(p."postings") <@ g.ords;
  UPDATE "posting_pages" p
  SET "postings" = (
    SELECT array_agg(e.tf ORDER BY e.k) || array_agg(e.doc_len ORDER BY e.k) || array_agg(e.ordinal ORDER BY e.k)
    FROM unnest(posting_tfs(p."postings"), posting_doc_lens(p."postings"), posting_ordinals(p."postings")) WITH ORDINALITY AS e(tf, doc_len, ordinal, k)
    WHERE NOT (e.ordinal = ANY(g.ords)))
  FROM (SELECT o."file_id", array_agg(o."ordinal") AS ords FROM old_rows o WHERE o."file_id" = ANY(gone_files) GROUP BY o."file_id") g
  WHERE p."file_id" = ANY(gone_files) AND p."file_id" = g."file_id" AND posting_ordinals(p."postings") && g.ords;
  UPDATE "posting_pages" p SET "inc" = 1, "first_tf" = p."postings"[1], "first_dl" = p."postings"[posting_count(p."postings") + 1]
  WHERE (p."file_id", p."term") IN (SELECT f, t FROM unnest(hit_files, hit_terms) AS h(f, t));
  RETURN NULL;
END;
$$;

-- retrieval_lexical_search, sixth version (see above).
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
    -- Every posting of the uncapped terms (at most $7 per KB and term by definition); a posting's
    -- chunk is (file_id, ordinal).
    SELECT x.file_id, x.ordinal, w.term, w.w, x.tf, x.doc_len
    FROM w CROSS JOIN unnest($1) AS kb(id)
    CROSS JOIN LATERAL (
      SELECT p.file_id, e.tf, e.doc_len, e.ordinal FROM posting_pages p
      CROSS JOIN LATERAL unnest(posting_tfs(p.postings), posting_doc_lens(p.postings), posting_ordinals(p.postings)) AS e(tf, doc_len, ordinal)
      WHERE p.knowledge_id = kb.id AND p.term = w.term AND ($9 IS NULL OR p.file_id = ANY($9))
    ) x
    WHERE w.df > 0 AND NOT w.capped AND x.file_id NOT IN (SELECT id FROM bad)
  ), multi AS MATERIALIZED (
    -- Context and a shared heading can only come from another matched chunk of the same file.
    SELECT pr.file_id FROM pr GROUP BY pr.file_id HAVING count(DISTINCT pr.ordinal) > 1
  ), hr AS MATERIALIZED (
    -- Where an uncapped query term is in the heading of those files' chunks (runs of ordinals).
    SELECT r.file_id, r.term, r.first_ordinal, r.last_ordinal
    FROM heading_term_runs r JOIN w ON w.term = r.term AND w.df > 0 AND NOT w.capped
    WHERE r.knowledge_id = ANY($1) AND r.file_id IN (SELECT multi.file_id FROM multi)
  ), pp AS MATERIALIZED (
    -- Those files' postings and whether the term is in that chunk's heading (runs of one
    -- (file, term) never overlap).
    SELECT pr.*, hr.file_id IS NOT NULL AS head
    FROM pr LEFT JOIN hr ON hr.file_id = pr.file_id AND hr.term = pr.term AND pr.ordinal BETWEEN hr.first_ordinal AND hr.last_ordinal
    WHERE pr.file_id IN (SELECT multi.file_id FROM multi)
  ), ctx AS MATERIALIZED (
    -- Context weight per position: each posting covers the $14 positions on either side; a
    -- term counts once per position and not at all where the chunk holds it itself. (Grouping
    -- instead of joining keeps this linear: the planner cannot see inside these CTEs.)
    SELECT z.file_id, z.ordinal, sum(z.w) AS bonus FROM (
      SELECT pp.file_id, g.t AS ordinal, pp.term, max(pp.w) AS w, bool_or(g.t = pp.ordinal) AS own
      FROM pp CROSS JOIN LATERAL generate_series(pp.ordinal - $14, pp.ordinal + $14) AS g(t)
      WHERE $13 > 0
      GROUP BY pp.file_id, g.t, pp.term
    ) z WHERE NOT z.own GROUP BY z.file_id, z.ordinal
  ), rare AS MATERIALIZED (
    -- Exact score of each chunk from the uncapped terms plus its context weight, grouped by
    -- chunk; a position that only receives context (no posting of its own) is not a candidate.
    SELECT u.file_id, u.ordinal, sum(u.part) + $13 * sum(u.bonus) AS score, sum(u.matched) AS matched
    FROM (
      SELECT pr.file_id, pr.ordinal,
             pr.w * (pr.tf * ($4 + 1) / (pr.tf + $4 * (1 - $5 + $5 * pr.doc_len / greatest(st.avgdl, 1))) + $11) AS part,
             0::float8 AS bonus, 1 AS matched
      FROM pr CROSS JOIN st WHERE pr.file_id NOT IN (SELECT multi.file_id FROM multi)
      UNION ALL
      -- A heading term scores, in every chunk of the file whose heading holds it, the best score
      -- any of them gets for it: it says which section, not which of its chunks. Its own score
      -- (times 1e-6) only orders the chunks the rest leaves tied.
      SELECT z.file_id, z.ordinal,
             CASE WHEN z.head THEN max(z.part) OVER (PARTITION BY z.file_id, z.term, z.head) + 1e-6 * z.part ELSE z.part END,
             0, 1
      FROM (
        SELECT pp.file_id, pp.ordinal, pp.term, pp.head,
               pp.w * (pp.tf * ($4 + 1) / (pp.tf + $4 * (1 - $5 + $5 * pp.doc_len / greatest(st.avgdl, 1))) + $11) AS part
        FROM pp CROSS JOIN st
      ) z
      UNION ALL
      SELECT ctx.file_id, ctx.ordinal, 0, ctx.bonus, 0 FROM ctx
    ) u
    GROUP BY u.file_id, u.ordinal
    HAVING sum(u.matched) > 0
  ), enough AS MATERIALIZED (
    -- Do at least $6 chunks already reach capped_max through the uncapped terms? (A chunk
    -- holding only capped terms gets no context weight, so capped_max bounds it.)
    SELECT count(*) >= $6 AS yes FROM (
      SELECT 1 FROM rare CROSS JOIN bound WHERE rare.score >= bound.capped_max LIMIT $6
    ) strong
  ), pc AS MATERIALIZED (
    -- The best postings (tf DESC, doc_len, file_id, ordinal) of each capped term, as many as the
    -- bounds above allow (n): its pages in level order, those whose earlier levels' inc sum to
    -- less than n (they hold the best n postings; see 20261206000000_posting_pages), unnested and
    -- cut to n.
    SELECT x.file_id, x.ordinal, w.term, w.w, true AS capped, x.tf, x.doc_len
    FROM w CROSS JOIN unnest($1) AS kb(id)
    CROSS JOIN LATERAL (
      SELECT CASE WHEN enough.yes THEN 0
                  WHEN bound.capped_max < $12 * bound.mass THEN least($7, $6)
                  ELSE $7 END AS n
      FROM bound CROSS JOIN enough
    ) lim
    CROSS JOIN LATERAL (
      SELECT pg.file_id, e.ordinal, e.tf, e.doc_len
      FROM (
        SELECT r.file_id, r.postings,
               coalesce(sum(r.inc) OVER (ORDER BY r.first_tf DESC, r.first_dl
                                         GROUPS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
        FROM (
          SELECT p.file_id, p.postings, p.inc, p.first_tf, p.first_dl FROM posting_pages p
          WHERE p.knowledge_id = kb.id AND p.term = w.term AND ($9 IS NULL OR p.file_id = ANY($9))
          ORDER BY p.first_tf DESC, p.first_dl
          FETCH FIRST (lim.n) ROWS WITH TIES
        ) r
      ) pg
      CROSS JOIN LATERAL unnest(posting_tfs(pg.postings), posting_doc_lens(pg.postings), posting_ordinals(pg.postings)) AS e(tf, doc_len, ordinal)
      WHERE pg.before < lim.n
      ORDER BY e.tf DESC, e.doc_len, pg.file_id, e.ordinal
      LIMIT lim.n
    ) x
    WHERE w.df > 0 AND w.capped AND lim.n > 0 AND x.file_id NOT IN (SELECT id FROM bad)
  ), c AS MATERIALIZED (
    -- Candidates: lower bound = exact uncapped score + context + the capped postings read.
    SELECT coalesce(r.file_id, k.file_id) AS file_id,
           coalesce(r.ordinal, k.ordinal) AS ordinal,
           coalesce(r.score, 0) + coalesce(k.part, 0) AS lb,
           coalesce(r.score, 0) AS exact,
           coalesce(r.matched, 0) AS matched
    FROM rare r
    FULL JOIN (
      SELECT pc.file_id, pc.ordinal, sum(pc.w * (pc.tf * ($4 + 1) / (pc.tf + $4 * (1 - $5 + $5 * pc.doc_len / greatest(st.avgdl, 1))) + $11)) AS part
      FROM pc CROSS JOIN st GROUP BY pc.file_id, pc.ordinal
    ) k ON k.file_id = r.file_id AND k.ordinal = r.ordinal
    ORDER BY lb DESC, file_id, ordinal
    LIMIT $8
  ), cc AS MATERIALIZED (
    -- The candidates' chunks (one probe of chunks_file_id_ordinal_key each).
    SELECT c.*, ch.id AS chunk_id, ch.token_count, ch.tokens
    FROM c JOIN chunks ch ON ch.file_id = c.file_id AND ch.ordinal = c.ordinal
  ), ct AS (
    -- The capped terms' tf in each candidate, counted in its tokens (split once per candidate;
    -- array_positions compares without building strings: ~3x faster than counting with replace()).
    SELECT cc.chunk_id, w.term, cc.token_count AS doc_len, cardinality(array_positions(d.toks, w.term)) AS tf
    FROM cc
    CROSS JOIN LATERAL (SELECT string_to_array(cc.tokens, ' ') AS toks) d
    JOIN w ON w.capped
    WHERE EXISTS (SELECT 1 FROM w WHERE w.capped)
  ), s AS (
    SELECT cc.chunk_id,
           cc.exact + coalesce(sum(w.w * (ct.tf * ($4 + 1) / (ct.tf + $4 * (1 - $5 + $5 * ct.doc_len / greatest(st.avgdl, 1))) + $11)), 0) AS score,
           cc.matched + count(ct.chunk_id) AS matched
    FROM cc CROSS JOIN st
    LEFT JOIN w ON w.capped
    LEFT JOIN ct ON ct.chunk_id = cc.chunk_id AND ct.term = w.term AND ct.tf > 0
    GROUP BY cc.chunk_id, cc.file_id, cc.ordinal, cc.exact, cc.matched
    ORDER BY score DESC, cc.file_id, cc.ordinal
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

-- The rewrite leaves the table without planner statistics (see 20261212000000).
ANALYZE "posting_pages";
