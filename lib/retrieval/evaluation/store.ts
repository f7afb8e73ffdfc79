import "server-only";
// Question sets, runs and per-question results of the KB evaluation (issue 21). Every lookup is
// scoped by knowledge id, so another KB's set or run id answers *_NOT_FOUND. The caller (a
// route) has checked write access to the KB.
import { randomUUID } from "node:crypto";
import { stringify } from "csv-stringify/sync";
import { getDb } from "@/lib/db/client";
import { liveForwarderConnected } from "@/lib/db/live-events";
import { liveStateStream } from "@/lib/db/live-stream";
import { getEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { getModelConfig } from "@/lib/models/config";
import { EVAL_TOP_K } from "./metrics";
import { MAX_SET_QUESTIONS, type ParsedSet } from "./question-set";
import { abortLocalRun, kickEvaluationRunner } from "./runner";
import { goneEvent, isTerminalRunEvent, publishRunEvent, runEventRank, runStateEvent, subscribeRunEvents } from "./run-events";
import type { EvalQuestion, EvaluationOverview, ResultRow, RowError, RunEvent, RunMetrics, RunSettings, RunStatus, RunSummary, SetDetail, SetSummary, TopHit } from "./wire-types";

export type { ResultRow, RunSettings, RunStatus, RunSummary, SetDetail, SetSummary, TopHit } from "./wire-types";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toSetSummary(s: { id: string; name: string; questionCount: number; parseErrorCount: number; createdAt: Date; updatedAt: Date }): SetSummary {
  return { id: s.id, name: s.name, question_count: s.questionCount, parse_error_count: s.parseErrorCount, created_at: s.createdAt.toISOString(), updated_at: s.updatedAt.toISOString() };
}

export async function listSets(knowledgeId: string): Promise<SetSummary[]> {
  const db = await getDb();
  const rows = await db.evaluationSet.findMany({
    where: { knowledgeId },
    orderBy: { createdAt: "desc" },
    select: { id: true, name: true, questionCount: true, parseErrorCount: true, createdAt: true, updatedAt: true },
    take: 200,
  });
  return rows.map(toSetSummary);
}

export async function getSet(knowledgeId: string, setId: string): Promise<SetDetail> {
  const db = await getDb();
  const s = await db.evaluationSet.findFirst({ where: { id: setId, knowledgeId } });
  if (!s) throw new AppError("EVALUATION_SET_NOT_FOUND");
  return { ...toSetSummary(s), questions: s.questions as unknown as EvalQuestion[], parse_errors: s.parseErrors as unknown as RowError[] };
}

function assertUsable(questions: EvalQuestion[]) {
  if (questions.length === 0) throw new AppError("QUESTION_SET_INVALID");
  if (questions.length > MAX_SET_QUESTIONS) throw new AppError("QUESTION_SET_TOO_LARGE", `A question set holds at most ${MAX_SET_QUESTIONS} questions.`);
}

export async function createSet(knowledgeId: string, userId: string, name: string, parsed: ParsedSet): Promise<SetDetail> {
  // Every row malformed: nothing to run, and the errors say why (with line numbers).
  if (parsed.questions.length === 0) {
    const lines = parsed.errors.slice(0, 5).map((e) => `line ${e.line}: ${e.message}`).join("; ");
    throw new AppError("QUESTION_SET_INVALID", parsed.errorCount ? `No usable question (${parsed.errorCount} malformed row(s)): ${lines}` : "The question set has no question.");
  }
  assertUsable(parsed.questions);
  const db = await getDb();
  const s = await db.evaluationSet.create({
    data: {
      id: randomUUID(),
      knowledgeId,
      name,
      questions: parsed.questions as unknown as Prisma.InputJsonValue,
      questionCount: parsed.questions.length,
      parseErrors: parsed.errors as unknown as Prisma.InputJsonValue,
      parseErrorCount: parsed.errorCount,
      createdBy: userId,
    },
  });
  return { ...toSetSummary(s), questions: parsed.questions, parse_errors: parsed.errors };
}

/** The page's editor saves the whole set (name and questions); earlier parse errors are cleared. */
export async function updateSet(knowledgeId: string, setId: string, name: string, questions: EvalQuestion[]): Promise<SetDetail> {
  assertUsable(questions);
  const db = await getDb();
  const n = await db.evaluationSet.updateMany({
    where: { id: setId, knowledgeId },
    data: { name, questions: questions as unknown as Prisma.InputJsonValue, questionCount: questions.length, parseErrors: [], parseErrorCount: 0, updatedAt: new Date() },
  });
  if (n.count === 0) throw new AppError("EVALUATION_SET_NOT_FOUND");
  return getSet(knowledgeId, setId);
}

export async function deleteSet(knowledgeId: string, setId: string): Promise<void> {
  const db = await getDb();
  const n = await db.evaluationSet.deleteMany({ where: { id: setId, knowledgeId } });
  if (n.count === 0) throw new AppError("EVALUATION_SET_NOT_FOUND");
}

type RunRow = Awaited<ReturnType<Awaited<ReturnType<typeof getDb>>["evaluationRun"]["findFirst"]>> & {};

function toRunSummary(r: RunRow): RunSummary {
  return {
    id: r.id,
    set_id: r.setId,
    set_name: r.setName,
    status: r.status as RunStatus,
    total: r.total,
    done: r.done,
    settings: r.settings as unknown as RunSettings,
    metrics: (r.metrics as unknown as RunMetrics | null) ?? null,
    error_message: r.errorMessage,
    created_at: r.createdAt.toISOString(),
    started_at: iso(r.startedAt),
    finished_at: iso(r.finishedAt),
  };
}

/** Queues a run of a set with the chat's settings (min_score defaults to the chat's). */
export async function createRun(knowledgeId: string, userId: string, setId: string, minScore: number | null): Promise<RunSummary> {
  const db = await getDb();
  const set = await db.evaluationSet.findFirst({ where: { id: setId, knowledgeId }, select: { id: true, name: true, questionCount: true } });
  if (!set) throw new AppError("EVALUATION_SET_NOT_FOUND");
  const ready = await db.knowledgeFile.count({ where: { knowledgeId, status: "success" } });
  if (ready === 0) throw new AppError("KNOWLEDGE_NOT_READY");
  const chunks = await db.chunk.count({ where: { knowledgeId, file: { status: "success" } } });
  const env = getEnv();
  const cfg = getModelConfig();
  const settings: RunSettings = {
    min_score: minScore ?? env.RETRIEVAL_MIN_SCORE,
    top_k: EVAL_TOP_K,
    candidate_pool: EVAL_TOP_K * 2,
    translate: !!cfg.chat,
    models: { embedding: cfg.embedding?.model ?? null, rerank: cfg.rerank?.model ?? null, chat: cfg.chat?.model ?? null },
    chunking: { target_chars: env.CHUNK_TARGET_CHARS, overlap_chars: env.CHUNK_OVERLAP_CHARS },
    corpus: { files: ready, chunks },
  };
  const r = await db.evaluationRun.create({
    data: { id: randomUUID(), knowledgeId, setId: set.id, setName: set.name, total: set.questionCount, settings: settings as unknown as Prisma.InputJsonValue, createdBy: userId },
  });
  kickEvaluationRunner();
  return toRunSummary(r);
}

export async function listRuns(knowledgeId: string): Promise<RunSummary[]> {
  const db = await getDb();
  const rows = await db.evaluationRun.findMany({ where: { knowledgeId }, orderBy: { createdAt: "desc" }, take: 100 });
  return rows.map(toRunSummary);
}

export async function getRun(knowledgeId: string, runId: string): Promise<RunSummary> {
  const db = await getDb();
  const r = await db.evaluationRun.findFirst({ where: { id: runId, knowledgeId } });
  if (!r) throw new AppError("EVALUATION_RUN_NOT_FOUND");
  return toRunSummary(r);
}

/** A queued run is cancelled at once; a running one stops after its current question. */
export async function cancelRun(knowledgeId: string, runId: string): Promise<RunSummary> {
  const db = await getDb();
  const r = await db.evaluationRun.findFirst({ where: { id: runId, knowledgeId }, select: { id: true } });
  if (!r) throw new AppError("EVALUATION_RUN_NOT_FOUND");
  const queued = await db.evaluationRun.updateMany({ where: { id: runId, status: "queued" }, data: { status: "cancelled", cancelRequested: true, finishedAt: new Date() } });
  await db.evaluationRun.updateMany({ where: { id: runId, status: "running" }, data: { cancelRequested: true } });
  abortLocalRun(runId);
  const after = await getRun(knowledgeId, runId);
  // A running run's end is published by its runner (here or on another instance).
  if (queued.count > 0) publishRunEvent(runId, runStateEvent(after));
  return after;
}

export async function deleteRun(knowledgeId: string, runId: string): Promise<void> {
  const db = await getDb();
  const r = await db.evaluationRun.findFirst({ where: { id: runId, knowledgeId }, select: { status: true } });
  if (!r) throw new AppError("EVALUATION_RUN_NOT_FOUND");
  // A running run is cancelled first; its runner notices the missing row and stops.
  await db.evaluationRun.deleteMany({ where: { id: runId, knowledgeId } });
  publishRunEvent(runId, goneEvent());
}

export interface RunStreamOptions {
  signal?: AbortSignal;
  heartbeatMs?: number;
  pollMs?: number;
}

/**
 * SSE of GET …/runs/{run_id}/events (wire-types.ts RunEvent): the run's state first, then its
 * live events until the terminal one. The mechanism is the parse jobs' (lib/db/live-stream.ts):
 * the bus, relayed between instances on a PostgreSQL server, with the row read again while the
 * stream is quiet — every 2 s without the relay, every 15 s with it. The route has checked access
 * and that the run is in this KB.
 */
export function runEventStream(knowledgeId: string, runId: string, opts: RunStreamOptions = {}): ReadableStream<Uint8Array> {
  return liveStateStream<RunEvent>({
    subscribe: (listener) => subscribeRunEvents(runId, listener),
    snapshot: async () => {
      const db = await getDb();
      const r = await db.evaluationRun.findFirst({ where: { id: runId, knowledgeId } });
      return r ? runStateEvent(toRunSummary(r)) : goneEvent();
    },
    isTerminal: isTerminalRunEvent,
    rank: runEventRank,
    readError: { type: "error", code: "INTERNAL_ERROR", message: "Could not read the run's progress." },
    signal: opts.signal,
    heartbeatMs: opts.heartbeatMs,
    pollMs: opts.pollMs ?? (liveForwarderConnected() ? 15_000 : 2_000),
  });
}

export type ResultFilter = "all" | "missed" | "refused" | "unanswerable";

export async function listResults(
  knowledgeId: string,
  runId: string,
  q: { page: number; page_size: number; filter: ResultFilter },
): Promise<{ items: ResultRow[]; total: number; page: number; page_size: number }> {
  const db = await getDb();
  await getRun(knowledgeId, runId);
  const where: Prisma.EvaluationResultWhereInput = { runId };
  if (q.filter === "missed") Object.assign(where, { answerable: true, firstCorrectRank: null });
  else if (q.filter === "refused") where.refused = true;
  else if (q.filter === "unanswerable") where.answerable = false;
  const [rows, total] = await Promise.all([
    db.evaluationResult.findMany({ where, orderBy: { ordinal: "asc" }, skip: (q.page - 1) * q.page_size, take: q.page_size }),
    db.evaluationResult.count({ where }),
  ]);
  return { items: rows.map(toResultRow), total, page: q.page, page_size: q.page_size };
}

function toResultRow(r: Awaited<ReturnType<Awaited<ReturnType<typeof getDb>>["evaluationResult"]["findMany"]>>[number]): ResultRow {
  return {
    ordinal: r.ordinal,
    question: r.question,
    answerable: r.answerable,
    expected: r.expected as unknown as ResultRow["expected"],
    first_correct_rank: r.firstCorrectRank,
    top_score: r.topScore,
    top_correct: r.topCorrect,
    refused: r.refused,
    top_hits: r.topHits as unknown as TopHit[],
    error_message: r.errorMessage,
  };
}

const EXPORT_PAGE = 500;
/** A CSV cell starting with these is read as a formula by spreadsheets: prefix it. */
const FORMULA_START = /^[=+\-@\t\r]/;
const cell = (v: string | number | boolean | null) =>
  v === null ? "" : typeof v === "boolean" ? String(v) : typeof v === "string" && FORMULA_START.test(v) ? `'${v}` : v;

/** The run as CSV (one row per question), read in pages so a 10,000-question run stays small. */
export async function* exportRunCsv(knowledgeId: string, runId: string): AsyncGenerator<string> {
  await getRun(knowledgeId, runId);
  const db = await getDb();
  yield "\uFEFF" + stringify([["ordinal", "question", "should_not_answer", "expected_file", "expected_page", "expected_text", "first_correct_rank", "top_score", "top_correct", "refused", "top1_file", "top1_page", "top1_score", "error"]]);
  for (let from = 0; ; from += EXPORT_PAGE) {
    const rows = await db.evaluationResult.findMany({ where: { runId, ordinal: { gte: from, lt: from + EXPORT_PAGE } }, orderBy: { ordinal: "asc" } });
    if (rows.length === 0) {
      const more = await db.evaluationResult.count({ where: { runId, ordinal: { gte: from } } });
      if (more === 0) return;
      continue;
    }
    yield stringify(
      rows.map(toResultRow).map((r) => {
        const t = r.top_hits[0];
        return [r.ordinal + 1, r.question, !r.answerable, r.expected.file, r.expected.page, r.expected.text, r.first_correct_rank, r.top_score, r.top_correct, r.refused, t?.file_name ?? null, t?.page_start ?? null, t?.score ?? null, r.error_message].map(cell);
      }),
    );
  }
}

export type { EvaluationOverview } from "./wire-types";

export async function evaluationOverview(knowledgeId: string): Promise<EvaluationOverview> {
  const [sets, runs] = await Promise.all([listSets(knowledgeId), listRuns(knowledgeId)]);
  return { sets, runs, can_generate: !!getModelConfig().chat, default_min_score: getEnv().RETRIEVAL_MIN_SCORE, max_questions: MAX_SET_QUESTIONS };
}
