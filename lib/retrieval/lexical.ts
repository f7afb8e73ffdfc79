import "server-only";
// BM25 computed in SQL over chunk_terms (SPEC §8): the same statement runs on PGlite and on a
// PostgreSQL server. Corpus statistics (N, avgdl, df) are those of exactly the knowledge bases
// being searched (summed from per-KB tables kept exact by triggers), so a KB's scores never
// depend on another KB's content. Very common terms are cut: only their best postings are read
// to find candidates, and their exact contribution is added for the best candidates.
import type { RawDb } from "@/lib/db/client";
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
  /** Share of the query's weight below which chunks holding only capped terms are not worth
   * reading many postings for (default NEGLIGIBLE_SHARE). */
  negligibleShare?: number;
  /** Weight of the context bonus (CONTEXT_WEIGHT by default; 0 = plain BM25). */
  contextWeight?: number;
  /** Chunks on each side that count as context (CONTEXT_WINDOW by default). */
  contextWindow?: number;
}

/**
 * Context bonus: a chunk gains CONTEXT_WEIGHT × qtf·idf of each (uncapped) query term it lacks
 * that occurs within CONTEXT_WINDOW chunks of it in the same file. Questions are often answered
 * by one sentence while their other words sit in the neighbouring ones (the passage is about
 * them). Chosen on both benchmark sets with neighbouring values checked (γ 0.1–0.5 all beat the
 * baselines; docs/benchmarks-retrieval.md); a window rather than the whole file so that a very
 * large file does not lift all of its chunks.
 */
export const CONTEXT_WEIGHT = 0.25;
export const CONTEXT_WINDOW = 3;

/**
 * A chunk matching only the capped terms, perfectly, still covers less than this share of the
 * query (coverage ratio 0.1 → calibrated lexical score ≈ 0.11 with the default midpoint 0.25,
 * far below min_score 0.5), so such terms read only as many of their best postings as hits are
 * returned: those chunks only fill the list when the other terms find too few.
 */
export const NEGLIGIBLE_SHARE = 0.1;

/** The hit's chunk, read by the same statement (no second round trip to fetch it). */
export interface LexicalChunk {
  id: string;
  knowledge_id: string;
  file_id: string;
  file_name: string;
  page_start: number | null;
  page_end: number | null;
  heading_path: string;
  content: string;
  tokens: string;
}

export interface LexicalHit {
  chunkId: string;
  /** Raw BM25 (Lucene/BM25+ idf: ln(1 + (N - df + 0.5)/(df + 0.5))), heading terms at their section's
   *  best (see lexicalSearch), plus the context bonus. */
  score: number;
  /** Distinct query terms the chunk contains. */
  matchedTerms: number;
  chunk: LexicalChunk;
}

interface Row {
  kind: string;
  key: string;
  a: number;
  b: number;
  hit_knowledge_id: string | null;
  hit_file_id: string | null;
  hit_file_name: string | null;
  hit_page_start: number | null;
  hit_page_end: number | null;
  hit_heading_path: string | null;
  hit_content: string | null;
  hit_tokens: string | null;
}

export interface LexicalResult {
  hits: LexicalHit[];
  /** Number of chunks and mean token count over the searched KBs. */
  n: number;
  avgdl: number;
  /** Per distinct query term: qtf, df in the searched KBs and idf. Terms absent from the KBs have df 0. */
  terms: { term: string; qtf: number; df: number; idf: number }[];
  /** Postings the statement read: of uncapped terms (all of them) and of capped terms. */
  postingsRead: { uncapped: number; capped: number };
}

export function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

const MAX_QUERY_TERMS = 64;

/**
 * One call of `retrieval_lexical_search` (migration 20261202030000): df of each query term looked
 * up, postings of the query terms in the searched KBs (at most postingsCap per KB and term, best
 * first), summed per chunk, the best candidates completed with the capped terms' exact weights,
 * best `limit` returned; plus one row per term with its df and one row with N/avgdl, so
 * calibration needs no second round trip. It is a PL/pgSQL function so its plan is cached per
 * connection: planning the statement cost several times what running it does.
 *
 * Section-shared heading evidence (migration 20261211000000_heading_term_runs): an uncapped query
 * term in a chunk's heading path scores, for that chunk, the best BM25 score any chunk of the same
 * file holding the term in its heading gets for it (the file's runs in heading_term_runs, written
 * by the index writer). The title's words then say which section, and the chunks' other words
 * which of its chunks (docs/benchmarks-retrieval.md, "Twelfth session").
 */
export async function lexicalSearch(db: Pick<RawDb, "$queryRawUnsafe">, q: LexicalQuery): Promise<LexicalResult> {
  const qtf = [...termFrequencies(q.tokens)].slice(0, MAX_QUERY_TERMS);
  if (!qtf.length || !q.knowledgeIds.length) {
    return { hits: [], n: 0, avgdl: 0, terms: qtf.map(([term, f]) => ({ term, qtf: f, df: 0, idf: 0 })), postingsRead: { uncapped: 0, capped: 0 } };
  }
  const { sql, params } = buildLexicalCall(q, qtf);
  const rows = await db.$queryRawUnsafe<Row[]>(sql, ...params);
  const hits: LexicalHit[] = [];
  const dfs = new Map<string, number>();
  let n = 0;
  let avgdl = 0;
  const postingsRead = { uncapped: 0, capped: 0 };
  for (const r of rows) {
    if (r.kind === "h") hits.push({ chunkId: r.key, score: Number(r.a), matchedTerms: Number(r.b), chunk: toChunk(r) });
    else if (r.kind === "t") dfs.set(r.key, Number(r.a));
    else if (r.kind === "r") {
      postingsRead.uncapped = Number(r.a);
      postingsRead.capped = Number(r.b);
    } else {
      n = Number(r.a);
      avgdl = Number(r.b);
    }
  }
  hits.sort((x, y) => y.score - x.score || (x.chunkId < y.chunkId ? -1 : 1));
  const terms = qtf.map(([term, f]) => {
    const df = dfs.get(term) ?? 0;
    return { term, qtf: f, df, idf: bm25Idf(n, df) };
  });
  return { hits, n, avgdl, terms, postingsRead };
}

function toChunk(r: Row): LexicalChunk {
  return {
    id: r.key,
    knowledge_id: r.hit_knowledge_id ?? "",
    file_id: r.hit_file_id ?? "",
    file_name: r.hit_file_name ?? "",
    page_start: r.hit_page_start,
    page_end: r.hit_page_end,
    heading_path: r.hit_heading_path ?? "",
    content: r.hit_content ?? "",
    tokens: r.hit_tokens ?? "",
  };
}

/**
 * Postings read per (KB, term), best first by impact (tf high, chunk short). Terms with more
 * postings than this are "capped": their best postings still make candidates, and their exact
 * contribution is then looked up (primary key) for the best candidates only.
 */
export const DEFAULT_POSTINGS_CAP = 1000;

/** The function call and its parameters. */
function buildLexicalCall(q: LexicalQuery, qtf: [string, number][]): { sql: string; params: unknown[] } {
  const fileStatus = q.fileStatus === undefined ? "success" : q.fileStatus;
  const limit = Math.max(1, q.limit);
  // Candidates completed with the capped terms' exact contributions before the final cut.
  const depth = Math.max(limit * 4, 100);
  const params: unknown[] = [
    q.knowledgeIds,
    qtf.map((x) => x[0]),
    qtf.map((x) => x[1]),
    q.k1 ?? BM25_K1,
    q.b ?? BM25_B,
    limit,
    Math.max(1, Math.floor(q.postingsCap ?? DEFAULT_POSTINGS_CAP)),
    depth,
    q.fileIds ?? null,
    fileStatus,
    q.delta ?? 0,
    q.negligibleShare ?? NEGLIGIBLE_SHARE,
    q.contextWeight ?? CONTEXT_WEIGHT,
    Math.max(0, Math.floor(q.contextWindow ?? CONTEXT_WINDOW)),
  ];
  const sql = `SELECT kind, key, a, b, hit_knowledge_id, hit_file_id, hit_file_name, hit_page_start, hit_page_end, hit_heading_path, hit_content, hit_tokens FROM retrieval_lexical_search($1::text[], $2::text[], $3::int[], $4::float8, $5::float8, $6::int, $7::int, $8::int, $9::text[], $10::text, $11::float8, $12::float8, $13::float8, $14::int)`;
  return { sql, params };
}
