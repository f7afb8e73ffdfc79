// Score calibration (pure). Every signal is mapped to a 0..1 score with the same meaning, so
// `min_score` (default 0.5) is one threshold whichever signals ran:
//
//   lexical   r   = bm25(chunk, query) / Σ_t qtf_t · idf_t        (t over ALL distinct query terms,
//                                                                   those absent from the KB included)
//             cal = 1 / (1 + exp(-LEX_SLOPE · (r - LEX_MIDPOINT)))   rescaled so cal(0) = 0
//   The denominator is the score of an ideal chunk: one of average length that contains every
//   query term once. r measures how much of the query's information the chunk covers, weighted
//   by rarity; a question about something the KB never mentions keeps its rare terms unmatched
//   and scores low even if a few common words match. The midpoint is where cal = 0.5; it was
//   chosen on the abstention experiment (docs/benchmarks-retrieval.md) together with the
//   answerability cap below: the cap decides whether the KB answers the question at all, the
//   per-hit midpoint (0.25) only drops hits that cover little of it.
//
//   vector    cal = clamp((cos - VEC_LOW) / (VEC_HIGH - VEC_LOW), 0, 1)   (model-dependent bounds)
//   fusion    s   = 1 - (1 - lex)(1 - vec)     (probabilistic OR: equals the single signal when
//                                               only one ran, never exceeds 1, monotonic in both)
//   rerank    s   = RERANK_WEIGHT · rerank + (1 - RERANK_WEIGHT) · s
//
//   answerability (query level, lexical evidence only)
//             P   = σ(b + a1·r1 + a2·m1 + a3·u)      r1 = coverage ratio of the best chunk,
//                                                    m1 = share of the query's idf mass in it,
//                                                    u  = share of that mass in terms the KB lacks
//             A   = σ(logit P − logit τ)              so A = 0.5 exactly where P = τ
//             reported score of every hit = min(relevance, ceiling), the ceiling being the best
//             score with lexical held to min(A, cal); applied after MMR, so the order is the
//             uncapped relevance's (kb-search.ts rankAndCap)
//   A question about something the KB does not hold still finds chunks sharing a few words with
//   it; one hit's coverage cannot tell them apart from a real answer as well as the whole
//   query's evidence can (docs/benchmarks-retrieval.md, "Abstention").

export interface LexicalCalibration {
  midpoint: number;
  slope: number;
}

export const DEFAULT_LEXICAL_CALIBRATION: LexicalCalibration = { midpoint: 0.25, slope: 10 };
export const VEC_LOW = 0.3;
export const VEC_HIGH = 0.85;
export const RERANK_WEIGHT = 0.7;

function clamp01(x: number): number {
  if (Number.isNaN(x)) return 0;
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/** Coverage ratio r (see above). `idfMass` = Σ qtf·idf over all query terms. */
export function lexicalRatio(bm25: number, idfMass: number): number {
  if (!(idfMass > 0) || !(bm25 > 0)) return 0;
  return bm25 / idfMass;
}

function logistic(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** Maps a coverage ratio to 0..1; 0 → 0, midpoint → 0.5, strictly increasing, → 1 as r grows. */
export function calibrateLexical(ratio: number, cal: LexicalCalibration = DEFAULT_LEXICAL_CALIBRATION): number {
  if (!(ratio > 0)) return 0;
  if (!Number.isFinite(ratio)) return 1;
  const f0 = logistic(-cal.slope * cal.midpoint);
  const f = logistic(cal.slope * (ratio - cal.midpoint));
  return clamp01((f - f0) / (1 - f0));
}

/** Inverse of calibrateLexical on (0,1): the coverage ratio that maps to score s (benchmark analysis). */
export function inverseCalibrateLexical(s: number, cal: LexicalCalibration = DEFAULT_LEXICAL_CALIBRATION): number {
  if (!(s > 0)) return 0;
  if (s >= 1) return Infinity;
  const f0 = logistic(-cal.slope * cal.midpoint);
  const f = f0 + s * (1 - f0);
  return cal.midpoint + Math.log(f / (1 - f)) / cal.slope;
}

export function calibrateCosine(cos: number, low = VEC_LOW, high = VEC_HIGH): number {
  if (!Number.isFinite(cos)) return 0;
  return clamp01((cos - low) / (high - low));
}

export function fuseScores(lexical: number | null, vector: number | null): number {
  const l = clamp01(lexical ?? 0);
  const v = clamp01(vector ?? 0);
  return clamp01(1 - (1 - l) * (1 - v));
}

export function applyRerank(fused: number, rerank: number | null | undefined): number {
  if (rerank === null || rerank === undefined || !Number.isFinite(rerank)) return clamp01(fused);
  return clamp01(RERANK_WEIGHT * clamp01(rerank) + (1 - RERANK_WEIGHT) * clamp01(fused));
}

/** External provider scores: values in [0,1] are kept; other finite values are squashed; none → by rank. */
export function calibrateExternal(score: unknown, rank: number, total: number): number {
  if (typeof score === "number" && Number.isFinite(score)) {
    if (score >= 0 && score <= 1) return score;
    return score < 0 ? 0 : clamp01(score / (1 + score));
  }
  // No score: rank-based, from 0.75 for the first down to 0.5 for the last.
  if (total <= 1) return 0.75;
  return 0.75 - (0.25 * rank) / (total - 1);
}

/**
 * Query-level answerability model on three lexical features, fitted on the abstention
 * experiments of BOTH benchmark sets at once — cmrc2018-sent (Chinese) and scifact-train
 * (English), each set weighing the same (scripts/fit-answerability.ts --operating-point): the
 * coefficients and τ maximize the mean share of unanswerable questions abstained on, subject to
 * every (set, half) wrongly refusing ≤ 3 % of its answerable questions. Checked on: both halves of
 * both sets (docs/benchmarks-retrieval.md, "Two-language abstention"). Chinese abstains on ~70 %;
 * English claims on SciFact share their vocabulary with the other abstracts and lexical evidence
 * abstains on only ~13 % there at that refusal rate (an embedding model or reranker is needed).
 * The cmrc-only fit it replaces (−4.543, 5.331, 4.22, −3.317, τ 0.15) refused 3.1–3.5 % of
 * SciFact's answerable questions.
 */
export const ANSWERABILITY = { intercept: -1.392, coverage: 1.457, matchedShare: 1.814, absentShare: -2.552, tau: 0.315 };

export interface AnswerabilityFeatures {
  /** Coverage ratio r of the best chunk (its raw lexical score / Σ qtf·idf). */
  coverage: number;
  /** Σ qtf·idf of the query terms the best chunk contains / Σ qtf·idf. */
  matchedShare: number;
  /** Σ qtf·idf of the query terms absent from every searched KB / Σ qtf·idf. */
  absentShare: number;
}

function answerabilityLogit(f: AnswerabilityFeatures, m: typeof ANSWERABILITY): number {
  return m.intercept + m.coverage * f.coverage + m.matchedShare * f.matchedShare + m.absentShare * f.absentShare;
}

/** P(the KB answers the query), from the best chunk's lexical evidence. */
export function answerability(f: AnswerabilityFeatures, m = ANSWERABILITY): number {
  return logistic(answerabilityLogit(f, m));
}

/** The cap A applied to every lexical score of the query: 0.5 exactly at P = τ, monotonic in P. */
export function answerabilityCap(f: AnswerabilityFeatures, m = ANSWERABILITY): number {
  return clamp01(logistic(answerabilityLogit(f, m) - Math.log(m.tau / (1 - m.tau))));
}
