-- Postings in pages: one row per (file, write batch, term, page) instead of one per (chunk, term)
-- (issue 22, the indexing write cost).
--
-- Why. With one row per posting, every posting written went into the table and two B-trees (the
-- primary key (chunk_id, term) and the impact index), each logged: on embedded PGlite the postings
-- statement was 69 % of a 256-chunk batch's write and a 10 MB Markdown file wrote 2.3 GB of WAL
-- (docs/bench-ingest-under-load.md, eleventh session). Here the postings that one write batch of
-- one file gives a term are stored together, in arrays, so a batch writes about one row per
-- distinct term instead of one per (chunk, term).
--
-- The layout. A batch's postings of one term are sorted by impact — tf high first, then short
-- chunks first (doc_len), the order in which lexical search reads a very common term — and cut into
-- pages of 1, 2, 4, 8, … postings (page p holds ranks 2^p … 2^(p+1) − 1). Each page row carries:
--   first_tf, first_dl  the (tf, doc_len) of its best posting (its "level");
--   inc                 how many postings of this batch are known to be at least as good as this
--                       page's level once a reader has reached it in level order: 1 for the first
--                       page (its own best posting), else the size of the previous page (all of
--                       whose postings rank before this page's first). Always ≥ 1.
-- A reader that needs a term's best N postings (tf DESC, doc_len, chunk_id) reads the pages in
-- level order: once the running sum of inc reaches N at level λ, at least N postings are at λ or
-- better, so the best N are all in the pages whose level is λ or better — the pages read so far and
-- those tied with λ. The geometric page sizes keep what is read beyond the N needed to about N plus
-- one page per batch: fine-grained where a threshold usually falls (the best postings of each
-- batch), coarse below. The split ignores chunk ids (ties within a level may fall either side of a
-- page boundary), so it does not depend on the database's collation.
--
-- What does not change: the same postings (chunk, term, tf, doc_len) exist; document frequencies
-- (retrieval_term_stats) are kept exact by statement triggers on this table as before;
-- retrieval_lexical_search takes the same arguments and returns the same rows; chunks still carry
-- their postings with them when deleted (a trigger on chunks, as in 20261203020000).
--
-- The existing postings are carried over, grouped into pages per 256 ordinals of a file (a batch
-- of the old writer had no identity; any grouping gives valid pages), and the document
-- frequencies are recounted from them.

CREATE TABLE "posting_pages" (
  "knowledge_id" TEXT NOT NULL,
  "file_id" TEXT NOT NULL,
  "term" TEXT NOT NULL,
  "first_tf" INTEGER NOT NULL,
  "first_dl" INTEGER NOT NULL,
  "inc" INTEGER NOT NULL,
  -- One entry per posting, in impact order; ordinals are the chunks' positions in their file (for
  -- the context bonus, which needs them without a lookup per posting).
  "chunk_ids" TEXT[] NOT NULL,
  "tfs" INTEGER[] NOT NULL,
  "doc_lens" INTEGER[] NOT NULL,
  "ordinals" INTEGER[] NOT NULL
);

INSERT INTO "posting_pages" ("knowledge_id", "file_id", "term", "first_tf", "first_dl", "inc", "chunk_ids", "tfs", "doc_lens", "ordinals")
SELECT g."knowledge_id", g."file_id", g."term", g.tfs[1], g.doc_lens[1],
       CASE WHEN g.page = 0 THEN 1 ELSE 1 << (g.page - 1) END,
       g.chunk_ids, g.tfs, g.doc_lens, g.ordinals
FROM (
  SELECT x."knowledge_id", x."file_id", x."term", x.blk,
         -- floor(log2(rank)), in integers: the position of the highest set bit.
         length(ltrim(x.rk::int::bit(32)::text, '0')) - 1 AS page,
         array_agg(x."chunk_id" ORDER BY x.rk) AS chunk_ids,
         array_agg(x."tf" ORDER BY x.rk) AS tfs,
         array_agg(x."doc_len" ORDER BY x.rk) AS doc_lens,
         array_agg(x."ordinal" ORDER BY x.rk) AS ordinals
  FROM (
    SELECT ct."knowledge_id", ct."file_id", ct."term", ct."chunk_id", ct."tf", ct."doc_len", c."ordinal",
           c."ordinal" / 256 AS blk,
           row_number() OVER (PARTITION BY ct."file_id", c."ordinal" / 256, ct."term"
                              ORDER BY ct."tf" DESC, ct."doc_len", ct."chunk_id") AS rk
    FROM "chunk_terms" ct JOIN "chunks" c ON c."id" = ct."chunk_id"
  ) x
  GROUP BY x."knowledge_id", x."file_id", x."term", x.blk, 5
) g;

-- The old postings, their triggers and functions.
DROP TRIGGER IF EXISTS "chunks_delete_postings" ON "chunks";
DROP FUNCTION IF EXISTS "chunk_terms_follow_chunks"();
DROP TABLE "chunk_terms";
DROP FUNCTION IF EXISTS "retrieval_term_stats_apply"();

-- Document frequencies recounted from the pages (exact by construction from here on).
DELETE FROM "retrieval_term_stats";
INSERT INTO "retrieval_term_stats" ("knowledge_id", "term", "df")
SELECT "knowledge_id", "term", sum(cardinality("chunk_ids")) FROM "posting_pages" GROUP BY "knowledge_id", "term";

-- Reads by KB and term in level order (lexical search, grep's one-word arm); the whole of a file's
-- pages (its delete or reparse, the chunks trigger below).
CREATE INDEX "posting_pages_level_idx" ON "posting_pages" ("knowledge_id", "term", "first_tf" DESC, "first_dl");
CREATE INDEX "posting_pages_file_idx" ON "posting_pages" ("file_id");

CREATE FUNCTION "posting_pages_stats_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A term's df in a KB is the number of postings of its pages. Rows are upserted in key order so
  -- concurrent writers of one KB cannot deadlock.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "retrieval_term_stats" AS s ("knowledge_id", "term", "df")
    SELECT "knowledge_id", "term", sum(cardinality("chunk_ids")) FROM new_rows GROUP BY "knowledge_id", "term" ORDER BY "knowledge_id", "term"
    ON CONFLICT ("knowledge_id", "term") DO UPDATE SET "df" = s."df" + EXCLUDED."df";
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE "retrieval_term_stats" s SET "df" = s."df" - o.c
    FROM (SELECT "knowledge_id", "term", sum(cardinality("chunk_ids")) AS c FROM old_rows GROUP BY "knowledge_id", "term" ORDER BY "knowledge_id", "term") o
    WHERE s."knowledge_id" = o."knowledge_id" AND s."term" = o."term";
    DELETE FROM "retrieval_term_stats" s USING (SELECT DISTINCT "knowledge_id", "term" FROM old_rows) o
    WHERE s."knowledge_id" = o."knowledge_id" AND s."term" = o."term" AND s."df" <= 0;
  ELSE -- UPDATE
    INSERT INTO "retrieval_term_stats" AS s ("knowledge_id", "term", "df")
    SELECT d."knowledge_id", d."term", sum(d.c) FROM (
      SELECT "knowledge_id", "term", cardinality("chunk_ids")::bigint AS c FROM new_rows
      UNION ALL
      SELECT "knowledge_id", "term", -cardinality("chunk_ids")::bigint FROM old_rows
    ) d GROUP BY d."knowledge_id", d."term" HAVING sum(d.c) <> 0 ORDER BY d."knowledge_id", d."term"
    ON CONFLICT ("knowledge_id", "term") DO UPDATE SET "df" = s."df" + EXCLUDED."df";
    DELETE FROM "retrieval_term_stats" s WHERE s."df" <= 0
      AND (s."knowledge_id", s."term") IN (SELECT "knowledge_id", "term" FROM old_rows);
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "posting_pages_stats_insert" AFTER INSERT ON "posting_pages"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "posting_pages_stats_apply"();
CREATE TRIGGER "posting_pages_stats_delete" AFTER DELETE ON "posting_pages"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "posting_pages_stats_apply"();
CREATE TRIGGER "posting_pages_stats_update" AFTER UPDATE ON "posting_pages"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "posting_pages_stats_apply"();

-- Postings follow their chunks. The index writer deletes a file's pages itself before its chunks
-- (lib/retrieval/index-writer.ts), so on its path this finds nothing; it is what removes them when
-- chunks go any other way (a file or a knowledge base deleted, through the foreign keys' cascades).
CREATE FUNCTION "posting_pages_follow_chunks"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  gone_ids TEXT[];
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
  SELECT array_agg(o."id"), array_agg(DISTINCT o."file_id") INTO gone_ids, gone_files
  FROM old_rows o WHERE EXISTS (SELECT 1 FROM "chunks" c WHERE c."file_id" = o."file_id");
  IF gone_ids IS NULL THEN
    RETURN NULL;
  END IF;
  SELECT array_agg(h."file_id"), array_agg(h."term") INTO hit_files, hit_terms
  FROM (SELECT DISTINCT p."file_id", p."term" FROM "posting_pages" p
         WHERE p."file_id" = ANY(gone_files) AND p."chunk_ids" && gone_ids) h;
  IF hit_files IS NULL THEN
    RETURN NULL;
  END IF;
  DELETE FROM "posting_pages" p WHERE p."file_id" = ANY(gone_files) AND p."chunk_ids" <@ gone_ids;
  UPDATE "posting_pages" p
  SET ("chunk_ids", "tfs", "doc_lens", "ordinals") = (
    SELECT array_agg(e.chunk_id ORDER BY e.k), array_agg(e.tf ORDER BY e.k), array_agg(e.doc_len ORDER BY e.k), array_agg(e.ordinal ORDER BY e.k)
    FROM unnest(p."chunk_ids", p."tfs", p."doc_lens", p."ordinals") WITH ORDINALITY AS e(chunk_id, tf, doc_len, ordinal, k)
    WHERE NOT (e.chunk_id = ANY(gone_ids)))
  WHERE p."file_id" = ANY(gone_files) AND p."chunk_ids" && gone_ids;
  UPDATE "posting_pages" p SET "inc" = 1, "first_tf" = p."tfs"[1], "first_dl" = p."doc_lens"[1]
  WHERE (p."file_id", p."term") IN (SELECT f, t FROM unnest(hit_files, hit_terms) AS h(f, t));
  RETURN NULL;
END;
$$;

CREATE TRIGGER "chunks_delete_posting_pages" AFTER DELETE ON "chunks"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "posting_pages_follow_chunks"();

-- retrieval_lexical_search, third version: the body of 20261203000000_lexical_hit_rows on the
-- pages, with the same arguments, the same result rows and the same hits and scores. Three reads
-- change:
--  * pr (every posting of an uncapped term): the term's pages, unnested; they carry each chunk's
--    ordinal, so pp (postings of files with several matched chunks) needs no lookup in chunks;
--  * pc (a capped term's best N postings by tf DESC, doc_len, chunk_id, N the same LIMIT as
--    before): the term's pages in level order, at most N of them plus those tied with the N-th
--    (every page has inc ≥ 1), cut where the running sum of inc of the levels before a page
--    reaches N (see the header), unnested, sorted and cut to N as before;
--  * s (the capped terms' exact contribution to the best candidates): tf is counted in the
--    candidate's stored tokens (chunks.tokens, the same tokens its postings were counted from,
--    space separated, never containing a space; doc_len is its token_count), instead of a
--    primary-key lookup per (candidate, capped term), which this layout does not have.
--    (array_positions on an empty string's split, '{}' or '{""}', finds no term: terms are never
--    empty.)
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
                                         RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE GROUP), 0) AS before
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
