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
//   chosen on the abstention experiment (docs/benchmarks-retrieval.md).
//
//   vector    cal = clamp((cos - VEC_LOW) / (VEC_HIGH - VEC_LOW), 0, 1)   (model-dependent bounds)
//   fusion    s   = 1 - (1 - lex)(1 - vec)     (probabilistic OR: equals the single signal when
//                                               only one ran, never exceeds 1, monotonic in both)
//   rerank    s   = RERANK_WEIGHT · rerank + (1 - RERANK_WEIGHT) · s

export interface LexicalCalibration {
  midpoint: number;
  slope: number;
}

export const DEFAULT_LEXICAL_CALIBRATION: LexicalCalibration = { midpoint: 0.45, slope: 10 };
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
