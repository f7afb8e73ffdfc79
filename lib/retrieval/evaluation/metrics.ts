// Judging a retrieval hit against a question's expectation, and the run's metrics (issue 21).
// Pure functions: the runner feeds them one question at a time, so a run's memory does not grow
// with its size (fixed-size counters only).
import type { EvalQuestion, RunMetrics } from "./wire-types";

/** Hits retrieved per question: Recall@20 needs 20. */
export const EVAL_TOP_K = 20;
/** Score histogram: 20 bins of width 0.05 over the calibrated 0..1 score. */
export const SCORE_BINS = 20;

export interface JudgedHit {
  file_name: string;
  page_start: number | null;
  page_end: number | null;
  content: string;
}

const norm = (s: string) => s.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
const baseName = (s: string) => norm(s).split(/[\\/]/).pop() ?? "";

function trigrams(s: string): Set<string> {
  const out = new Set<string>();
  const t = s.replace(/ /g, "");
  for (let i = 0; i + 3 <= t.length; i++) out.add(t.slice(i, i + 3));
  return out;
}

/**
 * The expected passage matches a hit when one contains the other (whitespace and case
 * folded), or when most of the passage's character trigrams are in the hit: chunks overlap and
 * are cut at sentence ends, so a passage copied from the document often straddles a boundary.
 */
export function passageMatches(expected: string, content: string): boolean {
  const e = norm(expected);
  const c = norm(content);
  if (!e) return false;
  if (c.includes(e) || (c.length >= 20 && e.includes(c))) return true;
  const g = trigrams(e);
  if (g.size === 0) return false;
  const ct = c.replace(/ /g, "");
  let seen = 0;
  for (const x of g) if (ct.includes(x)) seen++;
  return seen / g.size >= 0.6;
}

/** A hit is correct when it meets every expectation the question gives (file, page, passage). */
export function hitMatches(q: Pick<EvalQuestion, "expected_file" | "expected_page" | "expected_text">, h: JudgedHit): boolean {
  if (q.expected_file === null && q.expected_page === null && q.expected_text === null) return false;
  if (q.expected_file !== null && baseName(h.file_name) !== baseName(q.expected_file)) return false;
  if (q.expected_page !== null) {
    if (h.page_start === null) return false;
    if (q.expected_page < h.page_start || q.expected_page > (h.page_end ?? h.page_start)) return false;
  }
  if (q.expected_text !== null && !passageMatches(q.expected_text, h.content)) return false;
  return true;
}

export interface QuestionOutcome {
  answerable: boolean;
  /** 1-based rank of the first correct hit within EVAL_TOP_K, null when none. */
  firstCorrectRank: number | null;
  topScore: number | null;
  topCorrect: boolean | null;
  /** Grounded mode would answer NO_RELEVANT_CONTEXT at the run's min_score. */
  refused: boolean;
  /** Retrieval failed for this question (counted, left out of the rank metrics). */
  failed: boolean;
}

export type { RunMetrics } from "./wire-types";

/** Binary relevance with one expected target: DCG of the first correct hit, ideal DCG 1. */
export class MetricsAccumulator {
  private n = 0;
  private answerable = 0;
  private unanswerable = 0;
  private failed = 0;
  private ndcg = 0;
  private rr = 0;
  private refusedAnswerable = 0;
  private refusedUnanswerable = 0;
  private readonly foundAt = new Array<number>(EVAL_TOP_K).fill(0);
  private readonly correct = new Array<number>(SCORE_BINS).fill(0);
  private readonly incorrect = new Array<number>(SCORE_BINS).fill(0);

  add(o: QuestionOutcome): void {
    this.n++;
    if (o.failed) {
      this.failed++;
      return;
    }
    if (o.answerable) {
      this.answerable++;
      if (o.refused) this.refusedAnswerable++;
      const r = o.firstCorrectRank;
      if (r !== null && r >= 1 && r <= EVAL_TOP_K) {
        this.foundAt[r - 1]!++;
        if (r <= 10) {
          this.ndcg += 1 / Math.log2(r + 1);
          this.rr += 1 / r;
        }
      }
    } else {
      this.unanswerable++;
      if (o.refused) this.refusedUnanswerable++;
    }
    if (o.topScore !== null) {
      const bin = Math.min(SCORE_BINS - 1, Math.max(0, Math.floor(o.topScore * SCORE_BINS)));
      // A "should not be answered" question has no correct hit: its top hit counts as incorrect.
      (o.answerable && o.topCorrect ? this.correct : this.incorrect)[bin]!++;
    }
  }

  result(): RunMetrics {
    const a = this.answerable;
    const u = this.unanswerable;
    const recall: number[] = [];
    let cum = 0;
    for (let k = 0; k < EVAL_TOP_K; k++) {
      cum += this.foundAt[k]!;
      recall.push(a ? cum / a : 0);
    }
    return {
      questions: this.n,
      answerable: a,
      unanswerable: u,
      failed: this.failed,
      ndcg_at_10: a ? this.ndcg / a : null,
      recall_at_5: a ? recall[4]! : null,
      recall_at_20: a ? recall[EVAL_TOP_K - 1]! : null,
      mrr_at_10: a ? this.rr / a : null,
      refusal_rate_answerable: a ? this.refusedAnswerable / a : null,
      refusal_rate_unanswerable: u ? this.refusedUnanswerable / u : null,
      recall_by_rank: recall,
      score_histogram: { correct: [...this.correct], incorrect: [...this.incorrect] },
    };
  }
}
