// The KB evaluation's wire shapes (issue 21): what the HTTP routes and the run events answer.
// Types only — no runtime import, nothing server-only — so the server modules (store, metrics,
// question-set, run-events) and the browser (components/api/types.ts) name the same shapes
// while components/ still reaches the server only over HTTP.

export interface EvalQuestion {
  question: string;
  expected_file: string | null;
  expected_page: number | null;
  expected_text: string | null;
  /** "Should not be answered": the KB holds no answer; refusing it is correct. */
  unanswerable: boolean;
  /** The passage a generated question was drafted from (informational). */
  chunk_id: string | null;
}

/** A generated question, linked to the passage it was written from. */
export interface DraftQuestion extends EvalQuestion {
  passage: string;
}

export interface RowError {
  line: number;
  message: string;
}

export interface SetSummary {
  id: string;
  name: string;
  question_count: number;
  parse_error_count: number;
  created_at: string;
  updated_at: string;
}

export interface SetDetail extends SetSummary {
  questions: EvalQuestion[];
  parse_errors: RowError[];
}

/** What a run ran with: kept with it, so two runs can be compared after a change. */
export interface RunSettings {
  min_score: number;
  top_k: number;
  candidate_pool: number;
  translate: boolean;
  models: { embedding: string | null; rerank: string | null; chat: string | null };
  chunking: { target_chars: number; overlap_chars: number };
  /** Searchable files and chunks of the KB when the run was queued. */
  corpus: { files: number; chunks: number };
}

export interface RunMetrics {
  questions: number;
  answerable: number;
  unanswerable: number;
  failed: number;
  ndcg_at_10: number | null;
  recall_at_5: number | null;
  recall_at_20: number | null;
  mrr_at_10: number | null;
  /** Share of answerable questions grounded mode refused (lower is better). */
  refusal_rate_answerable: number | null;
  /** Share of "should not be answered" questions refused (higher is better). */
  refusal_rate_unanswerable: number | null;
  /** recall_by_rank[k-1] = Recall@k for k = 1..EVAL_TOP_K. */
  recall_by_rank: number[];
  /** Top-hit score histograms (bin i covers [i/20, (i+1)/20)): correct vs incorrect top hits. */
  score_histogram: { correct: number[]; incorrect: number[] };
}

export type RunStatus = "queued" | "running" | "succeeded" | "failed" | "cancelled";

export interface RunSummary {
  id: string;
  set_id: string | null;
  set_name: string;
  status: RunStatus;
  total: number;
  done: number;
  settings: RunSettings;
  metrics: RunMetrics | null;
  error_message: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface TopHit {
  rank: number;
  file_name: string;
  page_start: number | null;
  page_end: number | null;
  score: number;
  correct: boolean;
  snippet: string;
}

export interface ResultRow {
  ordinal: number;
  question: string;
  answerable: boolean;
  expected: { file: string | null; page: number | null; text: string | null };
  first_correct_rank: number | null;
  top_score: number | null;
  top_correct: boolean | null;
  refused: boolean;
  top_hits: TopHit[];
  error_message: string | null;
}

export interface EvaluationOverview {
  sets: SetSummary[];
  runs: RunSummary[];
  /** A chat model is configured: the page offers "generate questions from this KB". */
  can_generate: boolean;
  default_min_score: number;
  max_questions: number;
}

/**
 * Events of GET …/evaluation/runs/{run_id}/events (docs/evaluation.md): the run's current state
 * first, `progress` while it is queued or running (done = questions whose results are stored,
 * never decreasing), then exactly one terminal event named after the final status —
 * `succeeded`, `failed` or `cancelled`, with the final counts and the metrics summary — or
 * `error` {code, message} when the run is gone (deleted) or its state cannot be read. The stream
 * ends after the terminal event.
 */
export interface RunProgressData {
  run_id: string;
  status: "queued" | "running";
  done: number;
  total: number;
}
export interface RunEndData {
  run_id: string;
  done: number;
  total: number;
  metrics: RunMetrics | null;
  error_message: string | null;
  finished_at: string | null;
}
export type RunEndStatus = "succeeded" | "failed" | "cancelled";
export type RunEvent =
  | ({ type: "progress" } & RunProgressData)
  | ({ type: "succeeded"; status: "succeeded" } & RunEndData)
  | ({ type: "failed"; status: "failed" } & RunEndData)
  | ({ type: "cancelled"; status: "cancelled" } & RunEndData)
  | { type: "error"; code: string; message: string };
export type RunEventName = RunEvent["type"];
