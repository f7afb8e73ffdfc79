// Checks on the postings' pages (migration 20261206000000_posting_pages) shared by tests.

export interface QueryDb {
  $queryRawUnsafe<T = unknown>(sql: string, ...params: unknown[]): Promise<T>;
}

/**
 * Pages of a KB that break the layout's invariants: a page is non-empty, its array has one tf,
 * one chunk length and one ordinal per posting (migration 20261213020000_posting_pages_packed),
 * no chunk twice, its level is its first posting's and no posting in it ranks before that, inc ≥ 1.
 */
export async function pageViolations(db: QueryDb, kb: string): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ v: string }[]>(
    `SELECT p.file_id || ':' || p.term AS v FROM posting_pages p WHERE p.knowledge_id = $1 AND (
       cardinality(p.postings) = 0 OR cardinality(p.postings) % 3 <> 0 OR p.inc < 1
       OR posting_count(p.postings) <> cardinality(ARRAY(SELECT DISTINCT unnest(posting_ordinals(p.postings))))
       OR p.first_tf <> p.postings[1] OR p.first_dl <> (posting_doc_lens(p.postings))[1]
       OR EXISTS (SELECT 1 FROM unnest(posting_tfs(p.postings), posting_doc_lens(p.postings)) AS e(tf, dl) WHERE e.tf > p.first_tf OR (e.tf = p.first_tf AND e.dl < p.first_dl)))
     ORDER BY 1`,
    kb,
  );
  return rows.map((r) => r.v);
}
