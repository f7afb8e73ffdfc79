import "server-only";
// BM25 computed in SQL over chunk_terms (SPEC §8): the same statement runs on PGlite and on a
// PostgreSQL server. Corpus statistics (N, avgdl, df) are computed in the statement for exactly
// the knowledge bases being searched, so a KB's scores never depend on another KB's content.
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
 * One statement: postings of the query terms in the searched KBs (df by window count over the
 * same scan), joined to chunk lengths, summed per chunk, best `limit` returned; plus one row per
 * term with its df and one row with N/avgdl, so calibration needs no second round trip.
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

/** The statement and its parameters (exported for EXPLAIN in benchmarks). */
export function buildLexicalSql(q: LexicalQuery, qtf: [string, number][]): { sql: string; params: unknown[] } {
  const k1 = q.k1 ?? BM25_K1;
  const b = q.b ?? BM25_B;
  const fileStatus = q.fileStatus === undefined ? "success" : q.fileStatus;
  const params: unknown[] = [q.knowledgeIds, qtf.map((x) => x[0]), qtf.map((x) => x[1]), k1, b, Math.max(1, q.limit)];
  let fileFilter = "";
  if (q.fileIds) {
    params.push(q.fileIds);
    fileFilter += ` AND p.file_id = ANY($${params.length}::text[])`;
  }
  if (fileStatus !== null) {
    params.push(fileStatus);
    fileFilter += ` AND p.file_id IN (SELECT f.id FROM knowledge_files f WHERE f.knowledge_id = ANY($1::text[]) AND f.status = $${params.length})`;
  }
  const sql = `
WITH q AS (
  SELECT t.term, t.qtf FROM unnest($2::text[], $3::int[]) AS t(term, qtf)
), st AS (
  -- N and avgdl of the searched KBs, kept exact by triggers on chunks (migration 20261202010000).
  SELECT coalesce(sum(k.chunk_count), 0)::float8 AS n,
         (coalesce(sum(k.token_sum), 0)::float8 / greatest(coalesce(sum(k.chunk_count), 0), 1))::float8 AS avgdl
  FROM retrieval_kb_stats k WHERE k.knowledge_id = ANY($1::text[])
), p AS MATERIALIZED (
  SELECT ct.chunk_id, ct.file_id, ct.term, ct.tf, ct.doc_len, count(*) OVER (PARTITION BY ct.term) AS df
  FROM chunk_terms ct WHERE ct.knowledge_id = ANY($1::text[]) AND ct.term = ANY($2::text[])
), s AS (
  SELECT p.chunk_id,
         sum(q.qtf * ln(1 + (st.n - p.df + 0.5) / (p.df + 0.5))
             * p.tf * ($4::float8 + 1)
             / (p.tf + $4::float8 * (1 - $5::float8 + $5::float8 * p.doc_len / greatest(st.avgdl, 1)))) AS score,
         count(*) AS matched
  FROM p JOIN q ON q.term = p.term CROSS JOIN st
  WHERE true${fileFilter}
  GROUP BY p.chunk_id
  ORDER BY score DESC, p.chunk_id
  LIMIT $6
)
SELECT 'h' AS kind, s.chunk_id AS key, s.score::float8 AS a, s.matched::float8 AS b FROM s
UNION ALL
SELECT 't', p.term, max(p.df)::float8, 0 FROM p GROUP BY p.term
UNION ALL
SELECT 's', '', st.n, st.avgdl FROM st`;
  return { sql, params };
}
