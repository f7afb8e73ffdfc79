// The retrieval test's wire shapes (issue 21): what POST …/retrieval-test answers, and the
// per-hit scores the search pipeline computes. Types only — no runtime import, nothing
// server-only — so lib/retrieval and the browser (components/api/types.ts) name the same shapes
// while components/ still reaches the server only over HTTP.
import type { TextLanguage } from "./text/language";

export interface HitScores {
  /** Raw BM25 + context + heading bonus. */
  lexicalRaw: number;
  /** Coverage ratio: lexicalRaw / the query's idf mass. */
  lexicalRatio: number;
  /** Calibrated lexical score before the answerability cap (null: vector-only candidate); what fusion used. */
  lexicalCalibrated: number | null;
  /** Held to the query's answerability cap (explains the reported score; ranking does not use it). */
  lexical: number | null;
  vectorCosine: number | null;
  vector: number | null;
  /** Fused (uncapped lexical + vector) before rerank. */
  fused: number;
  rerank: number | null;
  /** Uncapped relevance after rerank: what the order and MMR used. */
  relevance: number;
  /** The reported score (min_score is compared with it): relevance held to the query's ceiling. */
  final: number;
  /** 1-based rank by relevance before MMR, and the position MMR picked it at. */
  relevanceRank: number;
  mmrPosition: number;
}

/** The query-level answerability evidence, as reported (AnswerabilityDiagnostics without terms). */
export interface AnswerabilityView {
  /** Coverage ratio r of the best chunk (its raw lexical score / Σ qtf·idf). */
  coverage: number;
  /** Σ qtf·idf of the query terms the best chunk contains / Σ qtf·idf. */
  matchedShare: number;
  /** Σ qtf·idf of the query terms absent from every searched KB / Σ qtf·idf. */
  absentShare: number;
  /** P(the KB answers the query). */
  probability: number;
  /** The cap every lexical score is held to in the reported score (0.5 exactly at P = tau). */
  cap: number;
  /** The highest score any hit may report: the best candidate's score with its lexical evidence
   * held to `cap` (vector and rerank evidence are not capped). 1 when tau is null. */
  ceiling: number;
  tau: number | null;
  /** Candidate features, reported for fitting (scripts/fit-answerability.ts), not used by the model:
   * the second-best chunk's coverage, and the largest share of the query's weight in one term the
   * best chunk contains. */
  secondCoverage: number;
  rarestMatchedShare: number;
  /** Share of the query's weight in terms of the best chunk's heading path (its title). */
  headingShare: number;
}

export type GroundedVerdict =
  | { answer: true; reason: "ok" }
  /** nothing in the KB shares a word with the question (and no vector match) */
  | { answer: false; reason: "no_match" }
  /** the question's evidence as a whole is too weak: its answerability cap is below min_score */
  | { answer: false; reason: "answerability"; cap: number }
  /** the best hit itself scores below min_score */
  | { answer: false; reason: "below_min_score"; best: number };

export interface RetrievalTestHit {
  rank: number;
  chunk_id: string;
  file_id: string | null;
  file_name: string;
  page_start: number | null;
  page_end: number | null;
  heading_path: string;
  quote: string;
  /** Character ranges of `quote` holding query terms. */
  highlights: [number, number][];
  score: number;
  passes_min_score: boolean;
  scores: HitScores | null;
}

export interface RetrievalTestResult {
  query: string;
  top_k: number;
  min_score: number;
  candidate_pool: number;
  models: { embedding: string | null; rerank: string | null };
  signals: { lexical: "ok"; vector: "off" | "ok" | "error"; rerank: "off" | "ok" | "error" };
  terms: { term: string; df: number; weight: number }[];
  answerability: AnswerabilityView | null;
  grounded: GroundedVerdict;
  /** Whether the chat would also search a translation (it has a chat model; this page never calls it). */
  translation: { question_language: TextLanguage | null; document_languages: TextLanguage[]; chat_would_translate: boolean };
  hits: RetrievalTestHit[];
  took_ms: number;
}
