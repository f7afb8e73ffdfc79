import "server-only";
// The evaluation job runner (issue 21): a small table-based queue in evaluation_runs. A runner
// claims the oldest queued run with FOR UPDATE SKIP LOCKED (so several instances on one
// PostgreSQL server never run one twice), runs its questions one at a time through the same
// runtime retrieve() the chat uses, judges the hits, writes the results in batches and updates
// `done` after each batch (the progress the page shows). Cancel is a flag read after each batch
// and an abort of the question in flight. A run left `running` by a dead process is marked
// failed at start-up (embedded PGlite: every one; a shared server: those whose lock went stale).
// One run at a time per process: the chat's requests share these cores.
import { randomUUID } from "node:crypto";
import { getDb, getRawDb, type RawDb } from "@/lib/db/client";
import { isAppError, publicMessageOf } from "@/lib/errors";

/** What the page may show of a failure: an AppError's public text, else a generic line (logged). */
function failureText(e: unknown): string {
  if (isAppError(e)) return publicMessageOf(e, "[evaluation]");
  console.error(`[evaluation] ${(e as Error)?.stack ?? String(e)}`);
  return "Retrieval failed for this question.";
}
import { groundedVerdict } from "../retrieval-test";
import { failInterruptedRuns } from "./recovery";
import { endEvent, progressEvent, publishRunEvent } from "./run-events";
import { getRetrievalRuntime } from "../runtime";
import { EVAL_TOP_K, hitMatches, MetricsAccumulator, type QuestionOutcome } from "./metrics";
import type { EvalQuestion } from "./question-set";
import type { RunSettings, TopHit } from "./store";
import type { RunEndStatus, RunMetrics } from "./wire-types";

/** Results written and progress reported every this many questions. */
const BATCH = 20;
/** Top hits kept per question for the page's table (Recall@20 is computed from all 20). */
const KEPT_HITS = 5;
const SNIPPET_CHARS = 240;
const POLL_MS = 5_000;
const STOPPED = "Stopped by a server restart.";

interface RunnerState {
  workerId: string;
  active: Promise<void> | null;
  again: boolean;
  /** The server is stopping: the run in flight ends as failed, not cancelled, and no new one starts. */
  stopping: boolean;
  timer: NodeJS.Timeout | null;
  /** Aborts of the question in flight, per run id. */
  aborts: Map<string, AbortController>;
  /** Test hook: awaited before each question. */
  beforeQuestion?: (runId: string, ordinal: number) => Promise<void> | void;
}

const g = globalThis as unknown as { __kaEvalRunner?: RunnerState };
function state(): RunnerState {
  g.__kaEvalRunner ??= { workerId: `eval:${randomUUID().slice(0, 8)}:${process.pid}`, active: null, again: false, stopping: false, timer: null, aborts: new Map() };
  return g.__kaEvalRunner;
}

/** Test hook (integration tests hold a run between questions to watch progress and cancel). */
export function setEvaluationTestHook(fn: RunnerState["beforeQuestion"] | undefined): void {
  state().beforeQuestion = fn;
}

/** Starts draining the queue in this process if it is not already (called after queuing a run). */
export function kickEvaluationRunner(): void {
  const s = state();
  if (s.active) {
    s.again = true;
    return;
  }
  s.active = drain(s)
    .catch((e) => console.error(`[evaluation] runner stopped: ${(e as Error).message}`))
    .finally(() => {
      s.active = null;
      if (s.again) {
        s.again = false;
        kickEvaluationRunner();
      }
    });
}

/** Resolves when this process's runner has nothing left to do (tests). */
export async function evaluationRunnerIdle(): Promise<void> {
  while (state().active) await state().active;
}

/**
 * Start-up: runs a dead process left `running` are marked failed (their partial results stay
 * readable), then the queue is drained. On a shared server a poll picks up runs another
 * instance queued (its own runner takes them first).
 */
export async function startEvaluationRunner(opts: { embedded: boolean; recovered?: boolean }): Promise<number> {
  // Boot fails dead runs before serving (recovered: true); a direct call (tests) does it here.
  const failed = opts.recovered ? 0 : await failInterruptedRuns(await getRawDb(), opts);
  const s = state();
  if (!opts.embedded && !s.timer) {
    s.timer = setInterval(() => kickEvaluationRunner(), POLL_MS);
    s.timer.unref();
  }
  kickEvaluationRunner();
  return failed;
}

/** Cancel in this process: the question in flight is aborted at once (other instances see the flag). */
export function abortLocalRun(runId: string): void {
  state().aborts.get(runId)?.abort();
}

export function stopEvaluationRunner(): void {
  const s = state();
  if (s.timer) clearInterval(s.timer);
  s.timer = null;
  s.stopping = true;
  for (const c of s.aborts.values()) c.abort();
}

interface Claimed {
  id: string;
  knowledge_id: string;
  set_id: string | null;
  settings: RunSettings;
  created_by: string;
  total: number;
}

async function claim(raw: RawDb, workerId: string): Promise<Claimed | null> {
  const rows = await raw.$queryRawUnsafe<Claimed[]>(
    `UPDATE evaluation_runs SET status = 'running', locked_by = $1, locked_at = now(), started_at = now()
     WHERE id = (SELECT id FROM evaluation_runs WHERE status = 'queued' AND NOT cancel_requested ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING id, knowledge_id, set_id, settings, created_by, total`,
    workerId,
  );
  const run = rows[0] ?? null;
  if (run) publishRunEvent(run.id, progressEvent(run.id, "running", 0, run.total));
  return run;
}

async function drain(s: RunnerState): Promise<void> {
  const raw = await getRawDb();
  for (;;) {
    if (s.stopping) return;
    const run = await claim(raw, s.workerId);
    if (!run) return;
    await runOne(raw, s, run);
  }
}

/** Stores the end of a run and tells its streams (here and, through the relay, elsewhere). */
async function finish(raw: RawDb, runId: string, status: RunEndStatus, metrics: RunMetrics | null, error: string | null, done: number) {
  // finished_at as ISO text in SQL: drivers differ in how they return timestamps.
  const rows = await raw.$queryRawUnsafe<{ total: number; finished_at: string }[]>(
    `UPDATE evaluation_runs SET status = $2, metrics = $3::jsonb, error_message = $4, done = $5, finished_at = now(), locked_by = NULL WHERE id = $1
     RETURNING total, to_char(finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS finished_at`,
    runId,
    status,
    JSON.stringify(metrics),
    error,
    done,
  );
  const r = rows[0];
  if (r) publishRunEvent(runId, endEvent(runId, status, { done, total: r.total, metrics, error_message: error, finished_at: r.finished_at }));
}

async function runOne(raw: RawDb, s: RunnerState, run: Claimed): Promise<void> {
  const db = await getDb();
  const set = run.set_id ? await db.evaluationSet.findUnique({ where: { id: run.set_id }, select: { questions: true } }) : null;
  if (!set) return finish(raw, run.id, "failed", null, "The question set was deleted.", 0);
  const questions = set.questions as unknown as EvalQuestion[];
  const acc = new MetricsAccumulator();
  const abort = new AbortController();
  s.aborts.set(run.id, abort);
  const runtime = getRetrievalRuntime();
  let batch: unknown[][] = [];
  let done = 0;
  try {
    for (let i = 0; i < questions.length; i++) {
      await s.beforeQuestion?.(run.id, i);
      if (abort.signal.aborted) break;
      const q = questions[i]!;
      const row = await judgeOne(runtime, run, q, abort.signal);
      if (abort.signal.aborted) break;
      acc.add(row.outcome);
      batch.push(row.values(i));
      if (batch.length >= BATCH || i === questions.length - 1) {
        const state = await flush(raw, run.id, batch, (done += batch.length));
        batch = [];
        if (state === "gone") return;
        publishRunEvent(run.id, progressEvent(run.id, "running", done, run.total));
        if (state === "cancel") abort.abort();
      }
    }
    if (batch.length) await flush(raw, run.id, batch, (done += batch.length));
    if (abort.signal.aborted) return finish(raw, run.id, s.stopping ? "failed" : "cancelled", acc.result(), s.stopping ? STOPPED : null, done);
    return finish(raw, run.id, "succeeded", acc.result(), null, done);
  } catch (e) {
    if (batch.length) await flush(raw, run.id, batch, (done += batch.length)).catch(() => undefined);
    const cancelled = abort.signal.aborted && !s.stopping;
    await finish(raw, run.id, cancelled ? "cancelled" : "failed", acc.result(), cancelled ? null : s.stopping ? STOPPED : failureText(e), done).catch(() => undefined);
  } finally {
    s.aborts.delete(run.id);
  }
}

/** Writes a batch of results and the progress; tells whether the run was cancelled or deleted. */
async function flush(raw: RawDb, runId: string, batch: unknown[][], done: number): Promise<"ok" | "cancel" | "gone"> {
  const cols = 11;
  const placeholders = batch.map((_, r) => `(${Array.from({ length: cols }, (_, c) => `$${r * cols + c + 1}`).join(", ")})`).join(", ");
  await raw.$executeRawUnsafe(
    `INSERT INTO evaluation_results (run_id, ordinal, question, answerable, expected, first_correct_rank, top_score, top_correct, refused, top_hits, error_message)
     SELECT v.run_id, v.ordinal::int, v.question, v.answerable::boolean, v.expected::jsonb, v.first_correct_rank::int, v.top_score::float8, v.top_correct::boolean, v.refused::boolean, v.top_hits::jsonb, v.error_message
     FROM (VALUES ${placeholders}) AS v(run_id, ordinal, question, answerable, expected, first_correct_rank, top_score, top_correct, refused, top_hits, error_message)
     WHERE EXISTS (SELECT 1 FROM evaluation_runs WHERE id = $1)
     ON CONFLICT (run_id, ordinal) DO NOTHING`,
    ...batch.flat(),
  );
  const rows = await raw.$queryRawUnsafe<{ cancel_requested: boolean }[]>(
    `UPDATE evaluation_runs SET done = $2, locked_at = now() WHERE id = $1 RETURNING cancel_requested`,
    runId,
    done,
  );
  if (!rows[0]) return "gone";
  return rows[0].cancel_requested ? "cancel" : "ok";
}

async function judgeOne(runtime: ReturnType<typeof getRetrievalRuntime>, run: Claimed, q: EvalQuestion, signal: AbortSignal) {
  const minScore = run.settings.min_score;
  let outcome: QuestionOutcome;
  let top: TopHit[] = [];
  let error: string | null = null;
  try {
    // The chat's retrieval at min_score 0 (every hit ranked, Recall@20 needs them all); the
    // grounded verdict at the run's min_score is the one the retrieval test page gives.
    const res = await runtime.retrieve(
      { query: q.question, topK: EVAL_TOP_K, knowledgeBaseIds: [run.knowledge_id], filters: null },
      { ownerId: run.created_by, sessionId: `evaluation:${run.id}`, turnId: "evaluation", traceId: `evaluation:${run.id}`, signal, readableKnowledgeIds: new Set([run.knowledge_id]) },
      { minScore: 0, translate: run.settings.translate },
    );
    const b = res.diagnostics.builtin;
    const hits = res.hits.map((h) => ({ h, scores: (h.chunkId && b?.scores[h.chunkId]) || null }));
    const verdict = groundedVerdict(hits.map((x) => ({ score: x.h.score, scores: x.scores })), b?.answerability, minScore);
    const correct = hits.map(({ h }) => !q.unanswerable && hitMatches(q, { file_name: h.fileName, page_start: h.pageStart, page_end: h.pageEnd, content: h.content }));
    const first = correct.indexOf(true);
    outcome = {
      answerable: !q.unanswerable,
      firstCorrectRank: first >= 0 ? first + 1 : null,
      topScore: hits[0]?.h.score ?? null,
      topCorrect: hits.length ? correct[0]! : null,
      refused: !verdict.answer,
      failed: false,
    };
    top = hits.slice(0, KEPT_HITS).map(({ h }, i) => ({
      rank: i + 1,
      file_name: h.fileName,
      page_start: h.pageStart,
      page_end: h.pageEnd,
      score: h.score,
      correct: correct[i]!,
      snippet: h.content.length > SNIPPET_CHARS ? `${h.content.slice(0, SNIPPET_CHARS)}…` : h.content,
    }));
  } catch (e) {
    if (signal.aborted) throw e;
    // One question's failure (e.g. the embedding model timed out) is recorded; the run goes on.
    error = failureText(e);
    outcome = { answerable: !q.unanswerable, firstCorrectRank: null, topScore: null, topCorrect: null, refused: true, failed: true };
  }
  return {
    outcome,
    values: (ordinal: number): unknown[] => [
      run.id,
      ordinal,
      q.question,
      !q.unanswerable,
      JSON.stringify({ file: q.expected_file, page: q.expected_page, text: q.expected_text }),
      outcome.firstCorrectRank,
      outcome.topScore,
      outcome.topCorrect,
      outcome.refused,
      JSON.stringify(top),
      error,
    ],
  };
}
