-- Section-shared heading evidence (issue 23) on the posting pages of 20261206000000_posting_pages.
-- The ranking is the one measured on branch s12-rank (its migration 20261208000000_heading_term_runs,
-- written over the former chunk_terms table and never landed); docs/benchmarks-retrieval.md,
-- "Thirteenth session", has the figures on this layout.
--
-- Why. A chunk's heading path (a document or section title) is indexed with its text, so the
-- title's words are in every chunk of the section, and BM25 scored each chunk's copy of them on
-- its own: divided by that chunk's length normalisation and stacked with the body's repetitions of
-- the same words. Those words say which section a question is about, not which of its chunks
-- answers it, yet they decided between siblings: on cmrc2018-sent with titles the sentence that
-- repeats the article's subject outranked the one holding the answer, and retrieve() trailed
-- MiniSearch.
--
-- What. A query term that is in a chunk's heading scores, for that chunk, the best BM25 score any
-- chunk of the same file with the term in its heading gets for it — the section's evidence, which
-- each of its chunks inherits equally. Siblings tie on the title's words and their other words
-- decide. Where nothing else tells them apart, their own score for the title's words does (added
-- times 1e-6: an order among ties, not a weight). A file of one chunk is its own section: nothing
-- changes for it.
--
-- How. heading_term_runs holds, per file and heading term, the runs of consecutive chunk ordinals
-- whose heading path contains the term (written by the index writer, lib/retrieval/index-writer.ts,
-- from tokenize(heading path); only runs of two or more chunks). retrieval_lexical_search joins them
-- to the postings of files with two or more matched chunks (the `pp` rows, which carry their
-- ordinal from the pages) and replaces those postings' BM25 part by the maximum over (file, term).
-- Only uncapped terms (df at most the postings cap) are shared: a capped term's postings are not
-- all read. Arguments and result rows are unchanged; the body is otherwise that of
-- 20261210000000_lexical_linear_levels (the posting-pages function with the capped terms' "before"
-- summed over a GROUPS frame, linear in the pages read), except that `multi` no longer depends on
-- the context weight ($13) (the heading needs it with context off too) and the context positions
-- are skipped when $13 = 0.
--
-- Timestamp. Written as 20261209000000 on branch s13-rank; renamed to 20261211000000 when main's
-- 20261210000000_lexical_linear_levels landed, which replaces this function with the version-3
-- body and would otherwise run after it and silently undo the heading evidence.
--
-- Existing data. A heading's terms cannot be computed in SQL (jieba, Traditional → Simplified,
-- stemming), so the files already indexed whose heading could span two chunks are listed in
-- heading_term_runs_pending; the server computes their runs in the background after start
-- (lib/retrieval/heading-runs-backfill.ts, the same tokenizer as the writer) and removes them from
-- the list; a file written again by the index writer leaves the list too. Until its runs are there
-- a file ranks exactly as before. Neither table is modelled in prisma/schema.prisma (raw SQL in
-- lib/retrieval only, like retrieval_kb_stats).
CREATE TABLE "heading_term_runs" (
  "knowledge_id" TEXT NOT NULL,
  "file_id" TEXT NOT NULL,
  "term" TEXT NOT NULL,
  "first_ordinal" INTEGER NOT NULL,
  "last_ordinal" INTEGER NOT NULL,
  CONSTRAINT "heading_term_runs_pkey" PRIMARY KEY ("file_id", "term", "first_ordinal"),
  -- A file's runs go with it (its delete, its knowledge base's delete); few rows (one per heading
  -- word and file, against one page row per term and batch), so the per-row check costs little.
  CONSTRAINT "heading_term_runs_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "knowledge_files"("id") ON DELETE CASCADE
);
CREATE INDEX "heading_term_runs_term_idx" ON "heading_term_runs" ("knowledge_id", "term") INCLUDE ("file_id", "first_ordinal", "last_ordinal");

CREATE TABLE "heading_term_runs_pending" (
  "file_id" TEXT NOT NULL,
  CONSTRAINT "heading_term_runs_pending_pkey" PRIMARY KEY ("file_id"),
  CONSTRAINT "heading_term_runs_pending_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "knowledge_files"("id") ON DELETE CASCADE
);
-- Files with at least two chunks under a heading: the only ones that can have a run.
INSERT INTO "heading_term_runs_pending" ("file_id")
SELECT c."file_id" FROM "chunks" c WHERE c."heading_path" <> '' GROUP BY c."file_id" HAVING count(*) > 1;

-- retrieval_lexical_search, fourth version (see above).
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
    -- Context and a shared heading can only come from another matched chunk of the same file.
    SELECT pr.file_id FROM pr GROUP BY pr.file_id HAVING count(DISTINCT pr.chunk_id) > 1
  ), hr AS MATERIALIZED (
    -- Where an uncapped query term is in the heading of those files' chunks (runs of ordinals).
    SELECT r.file_id, r.term, r.first_ordinal, r.last_ordinal
    FROM heading_term_runs r JOIN w ON w.term = r.term AND w.df > 0 AND NOT w.capped
    WHERE r.knowledge_id = ANY($1) AND r.file_id IN (SELECT multi.file_id FROM multi)
  ), pp AS MATERIALIZED (
    -- Those files' postings with their chunk's position ((file_id, ordinal) is unique) and
    -- whether the term is in that chunk's heading (runs of one (file, term) never overlap).
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
    -- chunk (or by position, which is the same chunk, where context applies).
    SELECT max(u.chunk_id) AS chunk_id, sum(u.part) + $13 * sum(u.bonus) AS score, sum(u.matched) AS matched
    FROM (
      SELECT pr.chunk_id AS key, pr.chunk_id,
             pr.w * (pr.tf * ($4 + 1) / (pr.tf + $4 * (1 - $5 + $5 * pr.doc_len / greatest(st.avgdl, 1))) + $11) AS part,
             0::float8 AS bonus, 1 AS matched
      FROM pr CROSS JOIN st WHERE pr.file_id NOT IN (SELECT multi.file_id FROM multi)
      UNION ALL
      -- A heading term scores, in every chunk of the file whose heading holds it, the best score
      -- any of them gets for it: it says which section, not which of its chunks. Its own score
      -- (times 1e-6) only orders the chunks the rest leaves tied.
      SELECT z.key, z.chunk_id,
             CASE WHEN z.head THEN max(z.part) OVER (PARTITION BY z.file_id, z.term, z.head) + 1e-6 * z.part ELSE z.part END,
             0, 1
      FROM (
        SELECT pp.file_id || '/' || pp.ordinal AS key, pp.chunk_id, pp.file_id, pp.term, pp.head,
               pp.w * (pp.tf * ($4 + 1) / (pp.tf + $4 * (1 - $5 + $5 * pp.doc_len / greatest(st.avgdl, 1))) + $11) AS part
        FROM pp CROSS JOIN st
      ) z
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
