import "server-only";
// The built-in knowledge-base search pipeline: lexical BM25 (always) + vector (when an embedding
// function is injected) → calibrated fusion → dedupe → optional rerank → MMR → sorted hits. The
// query-level answerability cap is applied last, to the reported scores only (see reportedScores).
import { LRUCache } from "lru-cache";
import type { AnswerabilityView, HitScores } from "./wire-types";
import type { RawDb } from "@/lib/db/client";
import {
  ANSWERABILITY,
  answerability,
  answerabilityCap,
  type AnswerabilityFeatures,
  applyRerank,
  calibrateCosine,
  calibrateLexical,
  DEFAULT_LEXICAL_CALIBRATION,
  fuseScores,
  lexicalRatio,
  type LexicalCalibration,
} from "./calibrate";
import { bm25Idf, lexicalSearch, type LexicalChunk } from "./lexical";
import { mmrSelect } from "./mmr";
import { tokenize } from "./text/tokenize";
import type { RetrievalHit } from "./types";
import { knowledgesNeedingReindex, vectorSearch, type EmbeddingFunction } from "./vector";

export const BUILTIN_SOURCE_TYPE = "knowledge-base";

export type RerankFunction = (query: string, documents: string[], signal: AbortSignal) => Promise<number[]>;

export interface KbSearchParams {
  db: Pick<RawDb, "$queryRawUnsafe">;
  query: string;
  knowledgeIds: string[];
  fileIds?: string[] | null;
  topK: number;
  candidatePool: number;
  signal: AbortSignal;
  embedding?: EmbeddingFunction | null;
  rerank?: RerankFunction | null;
  calibration?: LexicalCalibration;
  /** MMR trade-off; 1 = relevance only. */
  mmrLambda?: number;
  /** Lexical common-term cut (postings read per KB and term); default DEFAULT_POSTINGS_CAP. */
  postingsCap?: number;
  /** BM25+ δ (benchmarks); default 0. */
  bm25Delta?: number;
  /** τ of the answerability cap (default ANSWERABILITY.tau; null = no cap; benchmarks sweep it). */
  answerabilityTau?: number | null;
}

export interface KbSearchDiagnostics {
  lexicalMs: number;
  vector: "off" | "ok" | "error";
  vectorError?: string;
  rerank: "off" | "ok" | "error";
  /** KBs holding vectors of another model (those are never compared; the KB needs re-indexing). */
  reindexRequired: string[];
  candidates: number;
  /** The query-level answerability model's inputs and output (absent when no lexical hit). */
  answerability?: AnswerabilityDiagnostics;
  /** Per returned hit (by chunk id): every score that decided its rank (the retrieval test page). */
  scores: Record<string, HitScores>;
}

export interface AnswerabilityDiagnostics extends AnswerabilityFeatures, AnswerabilityView {
  /** Query terms (after tokenizing) with their df in the searched KBs; df 0 = the KB lacks them. */
  terms: { term: string; df: number; weight: number }[];
}


export type { AnswerabilityView, HitScores };

interface Candidate {
  chunkId: string;
  lex: number | null;
  lexRaw: number;
  lexCal: number | null;
  vec: number | null;
  vecRaw: number;
  fused: number;
  rerank: number | null;
  score: number;
}

function throwIfAborted(signal: AbortSignal) {
  if (signal.aborted) throw signal.reason ?? new DOMException("Aborted", "AbortError");
}

export async function searchKnowledgeBases(p: KbSearchParams): Promise<{ hits: RetrievalHit[]; diagnostics: KbSearchDiagnostics }> {
  const diagnostics: KbSearchDiagnostics = { lexicalMs: 0, vector: "off", rerank: "off", reindexRequired: [], candidates: 0, scores: {} };
  if (!p.knowledgeIds.length || (p.fileIds && !p.fileIds.length)) return { hits: [], diagnostics };
  throwIfAborted(p.signal);
  const tokens = tokenize(p.query);
  const t0 = performance.now();
  const lexicalP = lexicalSearch(p.db, { knowledgeIds: p.knowledgeIds, fileIds: p.fileIds, tokens, limit: p.candidatePool, postingsCap: p.postingsCap, delta: p.bm25Delta }).then(
    (r) => {
      diagnostics.lexicalMs = performance.now() - t0;
      return r;
    },
  );
  const vectorP = (async () => {
    if (!p.embedding) return [];
    try {
      const [stale, qv] = await Promise.all([
        knowledgesNeedingReindex(p.db, p.knowledgeIds, p.embedding.model),
        p.embedding.embedQuery(p.query, p.signal),
      ]);
      // Reported so the UI can offer re-indexing; vectors of other models are never compared
      // (vectorSearch filters on the model), same-model vectors of those KBs still count.
      diagnostics.reindexRequired = stale;
      const hits = await vectorSearch(p.db, {
        knowledgeIds: p.knowledgeIds,
        fileIds: p.fileIds,
        vector: qv,
        model: p.embedding.model,
        limit: p.candidatePool,
      });
      diagnostics.vector = "ok";
      return hits;
    } catch (e) {
      if (p.signal.aborted) throw e;
      // The lexical signal still answers; the caller sees the failure in diagnostics.
      diagnostics.vector = "error";
      diagnostics.vectorError = e instanceof Error ? e.message : String(e);
      return [];
    }
  })();
  const [lex, vec] = await Promise.all([lexicalP, vectorP]);
  throwIfAborted(p.signal);

  // Evidence weights: a term the searched KBs lack counts as a term seen once (see evidenceTerms).
  const terms = evidenceTerms(lex.terms, lex.n);
  const idfMass = terms.reduce((s, t) => s + t.qtf * t.idf, 0);
  const byId = new Map<string, Candidate>();
  for (const h of lex.hits) {
    byId.set(h.chunkId, {
      chunkId: h.chunkId,
      lexRaw: h.score,
      lex: calibrateLexical(lexicalRatio(h.score, idfMass), p.calibration ?? DEFAULT_LEXICAL_CALIBRATION),
      lexCal: null,
      vec: null,
      vecRaw: -2,
      fused: 0,
      rerank: null,
      score: 0,
    });
  }
  for (const h of vec) {
    const c = byId.get(h.chunkId) ?? { chunkId: h.chunkId, lexRaw: 0, lex: null, lexCal: null, vec: null, vecRaw: -2, fused: 0, rerank: null, score: 0 };
    c.vec = calibrateCosine(h.cosine);
    c.vecRaw = h.cosine;
    byId.set(h.chunkId, c);
  }
  const cands = [...byId.values()];
  for (const c of cands) c.score = fuseScores(c.lex, c.vec);
  diagnostics.candidates = cands.length;
  if (!cands.length) return { hits: [], diagnostics };

  // Lexical hits came with their chunks; only vector-only candidates are fetched.
  const rowById = new Map<string, LexicalChunk>(lex.hits.map((h) => [h.chunkId, h.chunk]));
  const missing = cands.filter((c) => !rowById.has(c.chunkId)).map((c) => c.chunkId);
  if (missing.length) {
    const rows = await p.db.$queryRawUnsafe<LexicalChunk[]>(
      `SELECT c.id, c.knowledge_id, c.file_id, f.name AS file_name, c.page_start, c.page_end, c.heading_path, c.content, c.tokens
       FROM chunks c JOIN knowledge_files f ON f.id = c.file_id
       WHERE c.id = ANY($1::text[])`,
      missing,
    );
    for (const r of rows) rowById.set(r.id, r);
  }
  addHeadingBonus(cands, rowById, terms, idfMass, p.calibration ?? DEFAULT_LEXICAL_CALIBRATION);
  for (const c of cands) c.lexCal = c.lex;
  const answer = answerabilityOf(cands, rowById, terms, idfMass, p.answerabilityTau === null ? null : (p.answerabilityTau ?? ANSWERABILITY.tau));
  for (const c of cands) c.fused = c.score;
  // Dedupe: same chunk id is already merged; identical content (a file uploaded twice under
  // another name, repeated boilerplate) keeps its best-scored copy.
  cands.sort(byScore);
  const seenContent = new Set<string>();
  const pool: { c: Candidate; r: LexicalChunk }[] = [];
  for (const c of cands) {
    const r = rowById.get(c.chunkId);
    if (!r) continue; // a vector-only candidate deleted before its chunk was fetched
    const key = chunkFeatures(r).contentKey;
    if (seenContent.has(key)) continue;
    seenContent.add(key);
    pool.push({ c, r });
  }

  if (p.rerank && pool.length) {
    try {
      const scores = await p.rerank(p.query, pool.map((x) => x.r.content), p.signal);
      if (scores.length === pool.length) {
        pool.forEach((x, i) => {
          x.c.rerank = Number.isFinite(scores[i]) ? scores[i]! : null;
          x.c.score = applyRerank(x.c.score, scores[i]);
        });
        diagnostics.rerank = "ok";
      } else diagnostics.rerank = "error";
    } catch (e) {
      if (p.signal.aborted) throw e;
      diagnostics.rerank = "error";
    }
    pool.sort((a, b) => byScore(a.c, b.c));
  }

  const ranked = rankAndCap(
    pool.map((x) => ({ ...x, tokens: chunkFeatures(x.r).tokenSet })),
    { topK: p.topK, lambda: p.mmrLambda ?? 0.85, cap: answer?.cap ?? null },
  );
  if (answer) diagnostics.answerability = { ...answer, ceiling: ranked.ceiling };
  for (const { item: { c }, relevanceRank, mmrPosition, lexical, score } of ranked.hits) {
    diagnostics.scores[c.chunkId] = {
      lexicalRaw: c.lexRaw,
      lexicalRatio: lexicalRatio(c.lexRaw, idfMass),
      lexicalCalibrated: c.lexCal,
      lexical,
      vectorCosine: c.vec === null ? null : c.vecRaw,
      vector: c.vec,
      fused: c.fused,
      rerank: c.rerank,
      relevance: c.score,
      final: score,
      relevanceRank,
      mmrPosition,
    };
  }

  const hits: RetrievalHit[] = ranked.hits.map(({ item: { c, r }, lexical, score }) => ({
    id: r.id,
    chunkId: r.id,
    fileId: r.file_id,
    fileName: r.file_name,
    knowledgeId: r.knowledge_id,
    pageStart: r.page_start,
    pageEnd: r.page_end,
    headingPath: r.heading_path,
    content: r.content,
    score,
    sourceType: BUILTIN_SOURCE_TYPE,
    sourceId: r.file_id,
    sourceUri: null,
    sourceName: r.file_name,
    untrusted: true,
    metadata: { lexical: lexical === null ? null : round(lexical), vector: c.vec === null ? null : round(c.vec) },
  }));
  return { hits, diagnostics };
}

/** What rankAndCap needs of a candidate (the pipeline's Candidate, and its tests' stand-ins). */
export interface RankableCandidate {
  chunkId: string;
  /** Calibrated lexical score, uncapped (null: vector-only). */
  lex: number | null;
  lexRaw: number;
  vec: number | null;
  vecRaw: number;
  rerank: number | null;
  /** Uncapped relevance (fused, then reranked): what orders the hits and what MMR trades off. */
  score: number;
}

export interface RankedHit<T> {
  item: T;
  /** 1-based rank by relevance before MMR, and the position MMR picked it at. */
  relevanceRank: number;
  mmrPosition: number;
  /** The lexical score held to the cap (explains `score`), null for a vector-only hit. */
  lexical: number | null;
  /** The reported score (min_score is compared with it): min(relevance, ceiling). */
  score: number;
}

/**
 * Orders the (deduped, reranked) pool by uncapped relevance, picks top_k with MMR on that
 * relevance, and only then applies the query-level answerability cap — to the reported scores.
 * The cap is one number per query: applied before MMR it flattened the relevance MMR trades off
 * against redundancy and changed which passages were picked (SciFact Recall@5 0.789 → 0.735 with
 * no threshold; docs/benchmarks-retrieval.md, fifth pass). Returned in relevance order, so the
 * reported scores are non-increasing and the order is the same with the cap on or off.
 */
export function rankAndCap<T extends { c: RankableCandidate; tokens: ReadonlySet<string> }>(
  pool: readonly T[],
  o: { topK: number; lambda: number; cap: number | null },
): { hits: RankedHit<T>[]; ceiling: number } {
  const sorted = [...pool].sort((a, b) => byScore(a.c, b.c));
  const relevanceRank = new Map(sorted.map((x, i) => [x, i + 1]));
  const ceiling = o.cap === null ? 1 : scoreCeiling(sorted.map((x) => x.c), o.cap);
  let picked: T[];
  if (o.lambda < 1 && sorted.length > o.topK) {
    const evidence = sorted.map((x) => relevanceEvidence(x.c.score));
    const best = Math.max(evidence[0] ?? 0, Number.MIN_VALUE);
    picked = mmrSelect(sorted.map((x, i) => ({ relevance: evidence[i]! / best, tokens: x.tokens })), o.topK, o.lambda).map((i) => sorted[i]!);
  } else picked = sorted.slice(0, o.topK);
  const mmrPosition = new Map(picked.map((x, i) => [x, i + 1]));
  picked.sort((a, b) => byScore(a.c, b.c));
  const hits = picked.map((item) => ({
    item,
    relevanceRank: relevanceRank.get(item)!,
    mmrPosition: mmrPosition.get(item)!,
    lexical: item.c.lex === null || o.cap === null ? item.c.lex : Math.min(item.c.lex, o.cap),
    score: Math.min(item.c.score, ceiling),
  }));
  return { hits, ceiling };
}

/**
 * What MMR trades against similarity: the relevance as additive evidence, −ln(1 − score), over
 * the pool's best. Calibrated scores saturate (every strong lexical match sits at ≈ 0.99), so on
 * that scale the similarity term alone decided between strong candidates and MMR dropped relevant
 * siblings sharing a heading's words (issue 23: cmrc2018 with titles −0.003 nDCG@10, Recall@20
 * 0.977 vs 0.985; SciFact −0.0016, 0.845 vs 0.853). −ln(1 − s) undoes the saturation (for the
 * probabilistic OR of fusion it is the sum of the two signals' evidence) and keeps the order;
 * near-duplicates are still demoted. Exported for its tests.
 */
export function relevanceEvidence(score: number): number {
  return -Math.log(Math.max(1 - score, 1e-12));
}

/**
 * Heading bonus: HEADING_WEIGHT × qtf·idf of each query term in the chunk's heading path (a
 * section or document title says what the chunk is about; BM25 alone weighs a title word like
 * any other). Chosen with the context bonus in lexical.ts on both benchmark sets.
 */
export const HEADING_WEIGHT = 0.25;

// The caches below live on globalThis: Next bundles this module into more than one chunk, each a
// module instance of its own, and the bounds are meant per process (as the tokenizer's dictionary).
const g = globalThis as unknown as {
  __kaHeadingTokens?: LRUCache<string, Set<string>>;
  __kaChunkFeatures?: LRUCache<string, ChunkFeatures>;
};

// Headings repeat across questions (every chunk of a section shares one); tokenizing them with
// jieba on every query was a visible share of a chat turn's time.
const headingCache = (g.__kaHeadingTokens ??= new LRUCache<string, Set<string>>({ max: 5000 }));

function headingTokens(heading: string): Set<string> {
  let set = headingCache.get(heading);
  if (!set) headingCache.set(heading, (set = new Set(tokenize(heading))));
  return set;
}

interface ChunkFeatures {
  content: string;
  tokens: string | null;
  /** The stored tokens as a set (MMR similarity, answerability). */
  tokenSet: ReadonlySet<string>;
  /** Content with whitespace folded: identical texts under other names are duplicates. */
  contentKey: string;
}

// The same chunks come back question after question. Splitting their stored tokens into a set
// and folding their whitespace cost more main-thread time per turn than the rest of the fusion
// (profiled on 50 concurrent turns). Keyed by chunk id and checked against the row, so a chunk
// re-indexed under the same id is never served stale features. Bounded to about 16 MB of text
// (UTF-16 bytes).
const featureCache = (g.__kaChunkFeatures ??= new LRUCache<string, ChunkFeatures>({
  maxSize: 16_000_000,
  sizeCalculation: (f) => 2 * f.content.length + 2 * (f.tokens?.length ?? 0) + 1,
}));

/** Exported for its tests. */
export function chunkFeatures(r: LexicalChunk): ChunkFeatures {
  const hit = featureCache.get(r.id);
  if (hit && hit.content === r.content && hit.tokens === r.tokens) return hit;
  const f: ChunkFeatures = {
    content: r.content,
    tokens: r.tokens,
    tokenSet: new Set(r.tokens ? r.tokens.split(" ") : []),
    contentKey: r.content.replace(/\s+/g, " ").trim(),
  };
  featureCache.set(r.id, f);
  return f;
}

function addHeadingBonus(
  cands: Candidate[],
  rowById: Map<string, LexicalChunk>,
  terms: { term: string; qtf: number; idf: number }[],
  idfMass: number,
  calibration: LexicalCalibration,
) {
  for (const c of cands) {
    const heading = rowById.get(c.chunkId)?.heading_path;
    if (c.lex === null || !heading) continue;
    const set = headingTokens(heading);
    const bonus = terms.reduce((sum, t) => (set.has(t.term) ? sum + t.qtf * t.idf : sum), 0);
    if (bonus === 0) continue;
    c.lexRaw += HEADING_WEIGHT * bonus;
    c.lex = calibrateLexical(lexicalRatio(c.lexRaw, idfMass), calibration);
    c.score = fuseScores(c.lex, c.vec);
  }
}

/**
 * The query's answerability (calibrate.ts), computed from the best lexical candidate, and the cap
 * A its lexical evidence is held to in the reported scores (scoreCeiling). Changes no candidate.
 */
function answerabilityOf(
  cands: Candidate[],
  rowById: Map<string, LexicalChunk>,
  terms: { term: string; qtf: number; df: number; idf: number }[],
  idfMass: number,
  tau: number | null,
): Omit<AnswerabilityDiagnostics, "ceiling"> | undefined {
  let best: Candidate | undefined;
  for (const c of cands) if (c.lex !== null && rowById.has(c.chunkId) && (!best || c.lexRaw > best.lexRaw)) best = c;
  if (!best || !(idfMass > 0)) return undefined;
  const row = rowById.get(best.chunkId)!;
  const tokens = chunkFeatures(row).tokenSet;
  let matched = 0;
  let absent = 0;
  let rarestMatched = 0;
  for (const t of terms) {
    if (tokens.has(t.term)) {
      matched += t.qtf * t.idf;
      rarestMatched = Math.max(rarestMatched, t.qtf * t.idf);
    }
    if (t.df === 0) absent += t.qtf * t.idf;
  }
  const heading = row.heading_path ? headingTokens(row.heading_path) : null;
  let headed = 0;
  if (heading) for (const t of terms) if (heading.has(t.term)) headed += t.qtf * t.idf;
  let second = 0;
  for (const c of cands) if (c !== best && c.lex !== null && c.lexRaw > second) second = c.lexRaw;
  const features: AnswerabilityFeatures = { coverage: best.lexRaw / idfMass, matchedShare: matched / idfMass, absentShare: absent / idfMass };
  return {
    ...features,
    probability: answerability(features),
    cap: tau === null ? 1 : answerabilityCap(features, { ...ANSWERABILITY, tau }),
    tau,
    secondCoverage: second / idfMass,
    rarestMatchedShare: rarestMatched / idfMass,
    headingShare: headed / idfMass,
    terms: terms.map((t) => ({ term: t.term, df: t.df, weight: idfMass > 0 ? (t.qtf * t.idf) / idfMass : 0 })),
  };
}

/**
 * The highest score a hit of this query may report: the best score any candidate reaches with its
 * lexical evidence held to the cap (fused with its uncapped vector score, then its rerank score).
 * Every reported score is min(relevance, ceiling) — one number per query, monotonic in relevance,
 * so it never reorders the hits. With lexical evidence only this is exactly min(lexical, cap) per
 * hit, the score the abstention experiments and the model's fit measured.
 */
function scoreCeiling(cands: readonly RankableCandidate[], cap: number): number {
  if (cap >= 1) return 1;
  let ceiling = 0;
  for (const c of cands) {
    const lex = c.lex === null ? null : Math.min(c.lex, cap);
    ceiling = Math.max(ceiling, applyRerank(fuseScores(lex, c.vec), c.rerank));
  }
  return ceiling;
}

/**
 * The weights the query's evidence is measured in (calibration's denominator, the answerability
 * features). BM25's idf of a term with df 0 is the largest there is, which says "rarer than
 * anything here" — but a KB lacking a word says only that it is at most as frequent as a word
 * seen once. Weighing it above the rarest word the KB does hold let the ordinary words of a
 * question ("leave" in "Which warehouse did shipment 123405 leave?") outweigh the ID it matched
 * in a small KB; as a word seen once it weighs like the ID (docs/benchmarks-retrieval.md,
 * "Question words"). In large KBs the two idfs differ by ln 3 at most, on both benchmark sets.
 */
export function evidenceTerms<T extends { df: number; idf: number }>(terms: readonly T[], n: number): T[] {
  const seenOnce = bm25Idf(Math.max(n, 1), 1);
  return terms.map((t) => (t.df > 0 ? t : { ...t, idf: Math.min(t.idf, seenOnce) }));
}

/** Calibrated scores saturate near 1, so ties fall back to the raw signals, then the id. */
function byScore(a: RankableCandidate, b: RankableCandidate): number {
  return b.score - a.score || b.lexRaw - a.lexRaw || b.vecRaw - a.vecRaw || (a.chunkId < b.chunkId ? -1 : 1);
}

function round(x: number) {
  return Math.round(x * 10000) / 10000;
}
