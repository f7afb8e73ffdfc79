import "server-only";
// BM25 computed in SQL over chunk_terms (SPEC §8): the same statement runs on PGlite and on a
// PostgreSQL server. Corpus statistics (N, avgdl, df) are those of exactly the knowledge bases
// being searched (summed from per-KB tables kept exact by triggers), so a KB's scores never
// depend on another KB's content. Very common terms are cut: only their best postings are read
// to find candidates, and their exact contribution is added for the best candidates.
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { termFrequencies } from "./text/tokenize";

// Anserini's defaults; on both benchmark sets they match or beat k1=1.2, b=0.75 (docs/benchmarks-retrieval.md).
export const BM25_K1 = 0.9;
export const BM25_B = 0.4;

export interface LexicalQuery {
  knowledgeIds: string[];
  /** Restrict hits to these files (statistics stay those of the whole KBs). */
  fileIds?: string[] | null;
  /** Query tokens from tokenize(); repeated tokens weigh more (qtf). */
  tokens: string[];
  limit: number;
  k1?: number;
  b?: number;
  /** Only chunks of files in this status are returned (default "success"); null = any status. */
  fileStatus?: string | null;
  /** Postings read per KB and term before the common-term cut (default DEFAULT_POSTINGS_CAP). */
  postingsCap?: number;
  /** BM25+ lower bound δ added per matched term (times qtf·idf); default 0 = plain BM25. */
  delta?: number;
}

export interface LexicalHit {
  chunkId: string;
  /** Raw BM25 (Lucene/BM25+ idf: ln(1 + (N - df + 0.5)/(df + 0.5))). */
  score: number;
  /** Distinct query terms the chunk contains. */
  matchedTerms: number;
}

export interface LexicalResult {
  hits: LexicalHit[];
  /** Number of chunks and mean token count over the searched KBs. */
  n: number;
  avgdl: number;
  /** Per distinct query term: qtf, df in the searched KBs and idf. Terms absent from the KBs have df 0. */
  terms: { term: string; qtf: number; df: number; idf: number }[];
}

export function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

const MAX_QUERY_TERMS = 64;

/**
 * One statement: df of each query term looked up, postings of the query terms in the searched
 * KBs (at most postingsCap per KB and term, best first), summed per chunk, the best candidates
 * completed with the capped terms' exact weights, best `limit` returned; plus one row per term
 * with its df and one row with N/avgdl, so calibration needs no second round trip.
 */
export async function lexicalSearch(db: Pick<PrismaClient, "$queryRawUnsafe">, q: LexicalQuery): Promise<LexicalResult> {
  const qtf = [...termFrequencies(q.tokens)].slice(0, MAX_QUERY_TERMS);
  if (!qtf.length || !q.knowledgeIds.length) {
    return { hits: [], n: 0, avgdl: 0, terms: qtf.map(([term, f]) => ({ term, qtf: f, df: 0, idf: 0 })) };
  }
  const { sql, params } = buildLexicalSql(q, qtf);
  const rows = await db.$queryRawUnsafe<{ kind: string; key: string; a: number; b: number }[]>(sql, ...params);
  const hits: LexicalHit[] = [];
  const dfs = new Map<string, number>();
  let n = 0;
  let avgdl = 0;
  for (const r of rows) {
    if (r.kind === "h") hits.push({ chunkId: r.key, score: Number(r.a), matchedTerms: Number(r.b) });
    else if (r.kind === "t") dfs.set(r.key, Number(r.a));
    else {
      n = Number(r.a);
      avgdl = Number(r.b);
    }
  }
  hits.sort((x, y) => y.score - x.score || (x.chunkId < y.chunkId ? -1 : 1));
  const terms = qtf.map(([term, f]) => {
    const df = dfs.get(term) ?? 0;
    return { term, qtf: f, df, idf: bm25Idf(n, df) };
  });
  return { hits, n, avgdl, terms };
}

/**
 * Postings read per (KB, term), best first by impact (tf high, chunk short). Terms with more
 * postings than this are "capped": their best postings still make candidates, and their exact
 * contribution is then looked up (primary key) for the best candidates only.
 */
export const DEFAULT_POSTINGS_CAP = 1000;

/** The statement and its parameters (exported for EXPLAIN in benchmarks). */
export function buildLexicalSql(q: LexicalQuery, qtf: [string, number][]): { sql: string; params: unknown[] } {
  const k1 = q.k1 ?? BM25_K1;
  const b = q.b ?? BM25_B;
  const fileStatus = q.fileStatus === undefined ? "success" : q.fileStatus;
  const limit = Math.max(1, q.limit);
  const cap = Math.max(1, Math.floor(q.postingsCap ?? DEFAULT_POSTINGS_CAP));
  // Candidates completed with the capped terms' exact contributions before the final cut.
  const depth = Math.max(limit * 4, 100);
  const delta = q.delta ?? 0;
  const params: unknown[] = [q.knowledgeIds, qtf.map((x) => x[0]), qtf.map((x) => x[1]), k1, b, limit, cap, depth];
  // A file restriction is applied while reading postings (so a capped term's best postings are
  // those of the chosen files); the status filter once per candidate posting (inside the
  // per-term scan the planner re-evaluates it for every posting).
  let fileFilter = "";
  if (q.fileIds) {
    params.push(q.fileIds);
    fileFilter += ` AND ct.file_id = ANY($${params.length}::text[])`;
  }
  let statusFilter = "";
  if (fileStatus !== null) {
    params.push(fileStatus);
    // NOT IN over the (few) files in another status stays a hashed subplan, evaluated once.
    statusFilter = ` WHERE p.file_id NOT IN (SELECT f.id FROM knowledge_files f WHERE f.knowledge_id = ANY($1::text[]) AND f.status <> $${params.length})`;
  }
  // BM25 term weight of one posting (tf, doc_len) — w carries qtf·idf.
  const tw = (tf: string, dl: string) =>
    `(${tf} * ($4::float8 + 1) / (${tf} + $4::float8 * (1 - $5::float8 + $5::float8 * ${dl} / greatest(st.avgdl, 1)))${delta ? ` + ${Number(delta)}::float8` : ""})`;
  const sql = `
WITH q AS (
  SELECT t.term, t.qtf FROM unnest($2::text[], $3::int[]) AS t(term, qtf)
), st AS (
  -- N and avgdl of the searched KBs, kept exact by triggers on chunks (migration 20261202010000).
  SELECT coalesce(sum(k.chunk_count), 0)::float8 AS n,
         (coalesce(sum(k.token_sum), 0)::float8 / greatest(coalesce(sum(k.chunk_count), 0), 1))::float8 AS avgdl
  FROM retrieval_kb_stats k WHERE k.knowledge_id = ANY($1::text[])
), w AS MATERIALIZED (
  -- df of each query term over the searched KBs, kept exact by triggers on chunk_terms (migration 20261202020000).
  SELECT q.term, d.df, q.qtf * ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5)) AS w, d.df > $7 AS capped
  FROM q CROSS JOIN st
  CROSS JOIN LATERAL (SELECT coalesce(sum(ts.df), 0)::float8 AS df FROM retrieval_term_stats ts
                      WHERE ts.knowledge_id = ANY($1::text[]) AND ts.term = q.term) d
), p AS MATERIALIZED (
  -- Every posting of a term with at most $7 of them in a KB; the best $7 (impact order) otherwise.
  SELECT x.chunk_id, x.file_id, w.w, w.capped, x.tf, x.doc_len
  FROM w CROSS JOIN unnest($1::text[]) AS kb(id)
  CROSS JOIN LATERAL (
    SELECT ct.chunk_id, ct.file_id, ct.tf, ct.doc_len FROM chunk_terms ct
    WHERE ct.knowledge_id = kb.id AND ct.term = w.term${fileFilter}
    ORDER BY ct.tf DESC, ct.doc_len, ct.chunk_id
    LIMIT $7
  ) x
  WHERE w.df > 0
), c AS MATERIALIZED (
  -- Lower bound: every uncapped term is exact; a capped term counts where its posting was read.
  SELECT p.chunk_id,
         sum(p.w * ${tw("p.tf", "p.doc_len")}) AS lb,
         sum(CASE WHEN p.capped THEN 0 ELSE p.w * ${tw("p.tf", "p.doc_len")} END) AS exact,
         count(*) FILTER (WHERE NOT p.capped) AS matched
  FROM p CROSS JOIN st${statusFilter}
  GROUP BY p.chunk_id
  ORDER BY lb DESC, p.chunk_id
  LIMIT $8
), s AS (
  -- The capped terms' exact contributions for those candidates (primary-key lookups).
  SELECT c.chunk_id, c.exact + coalesce(sum(w.w * ${tw("ct.tf", "ct.doc_len")}), 0) AS score,
         c.matched + count(ct.chunk_id) AS matched
  FROM c CROSS JOIN st
  LEFT JOIN w ON w.capped
  LEFT JOIN chunk_terms ct ON ct.chunk_id = c.chunk_id AND ct.term = w.term
  GROUP BY c.chunk_id, c.exact, c.matched
  ORDER BY score DESC, c.chunk_id
  LIMIT $6
)
SELECT 'h' AS kind, s.chunk_id AS key, s.score::float8 AS a, s.matched::float8 AS b FROM s
UNION ALL
SELECT 't', w.term, w.df, 0 FROM w
UNION ALL
SELECT 's', '', st.n, st.avgdl FROM st`;
  return { sql, params };
}
