// Checks on the postings' pages (migration 20261206000000_posting_pages) shared by tests.

export interface QueryDb {
  $queryRawUnsafe<T = unknown>(sql: string, ...params: unknown[]): Promise<T>;
}

/**
 * Pages of a KB that break the layout's invariants: a page is non-empty, its arrays have one entry
 * per posting, no chunk twice, its level is its first posting's and no posting in it ranks before that, inc ≥ 1.
 */
export async function pageViolations(db: QueryDb, kb: string): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ v: string }[]>(
    `SELECT p.file_id || ':' || p.term AS v FROM posting_pages p WHERE p.knowledge_id = $1 AND (
       cardinality(p.ordinals) = 0 OR p.inc < 1
       OR cardinality(p.tfs) <> cardinality(p.ordinals) OR cardinality(p.doc_lens) <> cardinality(p.ordinals)
       OR cardinality(p.ordinals) <> cardinality(ARRAY(SELECT DISTINCT unnest(p.ordinals)))
       OR p.first_tf <> p.tfs[1] OR p.first_dl <> p.doc_lens[1]
       OR EXISTS (SELECT 1 FROM unnest(p.tfs, p.doc_lens) AS e(tf, dl) WHERE e.tf > p.first_tf OR (e.tf = p.first_tf AND e.dl < p.first_dl)))
     ORDER BY 1`,
    kb,
  );
  return rows.map((r) => r.v);
}
