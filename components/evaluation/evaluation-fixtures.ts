// Fixtures of the Evaluation tab for the flow gallery (issue 21): a finished run, a second run
// at a stricter min_score, a run in progress and a failed one.
import type { EvalResultRow, EvalRun, EvalRunMetrics } from "@/components/api/types";

const SETTINGS: EvalRun["settings"] = {
  min_score: 0.5,
  top_k: 20,
  candidate_pool: 40,
  translate: false,
  models: { embedding: null, rerank: null, chat: null },
  chunking: { target_chars: 650, overlap_chars: 100 },
  corpus: { files: 3, chunks: 148 },
};

const curve = (r1: number, r20: number) => Array.from({ length: 20 }, (_, i) => Math.round((r1 + ((r20 - r1) * Math.log(i + 1)) / Math.log(20)) * 1000) / 1000);

const METRICS: EvalRunMetrics = {
  questions: 124,
  answerable: 122,
  unanswerable: 2,
  failed: 0,
  ndcg_at_10: 0.842,
  recall_at_5: 0.918,
  recall_at_20: 0.967,
  mrr_at_10: 0.811,
  refusal_rate_answerable: 0.025,
  refusal_rate_unanswerable: 0.5,
  recall_by_rank: curve(0.74, 0.967),
  score_histogram: {
    correct: [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 6, 8, 11, 14, 17, 15, 10, 5, 2],
    incorrect: [0, 0, 0, 1, 1, 2, 2, 3, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0],
  },
};

export const EVAL_RUN_DONE: EvalRun = {
  id: "run-a",
  set_id: "set-1",
  set_name: "guide-questions",
  status: "succeeded",
  total: 124,
  done: 124,
  settings: SETTINGS,
  metrics: METRICS,
  error_message: null,
  created_at: "2026-12-03T09:00:00.000Z",
  started_at: "2026-12-03T09:00:01.000Z",
  finished_at: "2026-12-03T09:00:09.000Z",
};

export const EVAL_RUN_STRICT: EvalRun = {
  ...EVAL_RUN_DONE,
  id: "run-b",
  settings: { ...SETTINGS, min_score: 0.9 },
  metrics: { ...METRICS, refusal_rate_answerable: 0.377, refusal_rate_unanswerable: 1 },
  created_at: "2026-12-03T09:10:00.000Z",
};

export const EVAL_RUN_RUNNING: EvalRun = { ...EVAL_RUN_DONE, id: "run-c", status: "running", done: 60, metrics: null, finished_at: null };

export const EVAL_RUN_FAILED: EvalRun = { ...EVAL_RUN_DONE, id: "run-d", status: "failed", done: 40, metrics: null, error_message: "Interrupted by a server restart." };

export const EVAL_RESULTS: EvalResultRow[] = [
  {
    ordinal: 0,
    question: "What is the retention period for deleted files?",
    answerable: true,
    expected: { file: "guide.md", page: null, text: "The retention period for deleted files is 30 days" },
    first_correct_rank: 1,
    top_score: 0.912,
    top_correct: true,
    refused: false,
    top_hits: [
      { rank: 1, file_name: "guide.md", page_start: null, page_end: null, score: 0.912, correct: true, snippet: "The retention period for deleted files is 30 days; after that they cannot be restored." },
      { rank: 2, file_name: "guide.md", page_start: null, page_end: null, score: 0.421, correct: false, snippet: "You can upload PDF, DOCX, Markdown…" },
    ],
    error_message: null,
  },
  {
    ordinal: 1,
    question: "Which page lists the supported formats?",
    answerable: true,
    expected: { file: "handbook.pdf", page: 3, text: null },
    first_correct_rank: 4,
    top_score: 0.48,
    top_correct: false,
    refused: true,
    top_hits: [
      { rank: 1, file_name: "handbook.pdf", page_start: 7, page_end: 7, score: 0.48, correct: false, snippet: "Formats and limits…" },
      { rank: 2, file_name: "guide.md", page_start: null, page_end: null, score: 0.45, correct: false, snippet: "| Format | Page numbers |" },
    ],
    error_message: null,
  },
  {
    ordinal: 2,
    question: "What is the capital of Mongolia?",
    answerable: false,
    expected: { file: null, page: null, text: null },
    first_correct_rank: null,
    top_score: 0.212,
    top_correct: false,
    refused: true,
    top_hits: [{ rank: 1, file_name: "notes.txt", page_start: null, page_end: null, score: 0.212, correct: false, snippet: "会议纪要…" }],
    error_message: null,
  },
];
