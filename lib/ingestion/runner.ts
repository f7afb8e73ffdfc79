import "server-only";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { getEnv } from "@/lib/env";
import { AppError, isAppError, publicMessageOf } from "@/lib/errors";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { resumePendingGraphs } from "@/lib/graph/settings";
import { recoverInterruptedGraphs, runGraphStage } from "@/lib/graph/stage";
import { embedTexts } from "@/lib/models/embeddings";
import { getModelConfig } from "@/lib/models/config";
import { deleteFileChunksInBatches, IndexOwnershipLost, writeFileChunksInBatches, type BatchInfo } from "@/lib/retrieval/index-writer";
import { buildGrepIndex, filesAwaitingGrepIndex } from "@/lib/retrieval/grep-index";
import { detectDocumentLanguage } from "@/lib/retrieval/text/language";
import type { ChunkInput } from "@/lib/retrieval/types";
import { announceQueuedJobs } from "./cluster-events";
import { parseWithFeed } from "./incoming-chunks";
import { getParsePool } from "./parse-pool";
import { describeError } from "./parsers/common";
import { emitJobEvent, type JobEvent, type JobStage } from "./progress";
import type { FileType } from "./sniff";
import { cleanupTempFiles, getStorage } from "./storage";
import { DEFAULT_CONTENT_LIMITS, IngestionFailure, makeBudget, type ContentLimits } from "./types";

// The ingestion job runner (SPEC §7, §13). Jobs live in ingestion_jobs; any number of runners
// (one per app instance) claim them with FOR UPDATE SKIP LOCKED, each with bounded concurrency.
// Stages: queued → parsing → chunking → embedding → indexing → success | failed, mirrored in
// knowledge_files.status. Parsing, chunking and tokenizing run in a parse worker thread
// (parse-pool.ts), never on the thread that serves requests. A file's chunks are written by
// writeFileChunksInBatches in short transactions (the connection is released between them):
// the file's previous chunks are deleted, then the new ones inserted; only a file in `success`
// is searched, so a partly written file is never seen, and a job interrupted anywhere is
// retried from the start, which deletes whatever it had written: one copy of each chunk. A job
// that fails while indexing removes its partial index. Jobs left `running` by a dead process
// are requeued at start-up (and, on a shared PostgreSQL, when their lock goes stale); the third
// interrupted attempt fails the file. The time budget (INGEST_TIMEOUT_MS) covers parsing and
// indexing together.

export const MAX_ATTEMPTS = 3;
const DEFAULT_POLL_MS = 2_000;
const DEFAULT_STALE_MS = 5 * 60_000;
const HEARTBEAT_MS = 30_000;
const PROGRESS_WRITE_MS = 400;
/**
 * A stage change's transaction (job + file row). Prisma's default maxWait (2 s) is shorter than
 * the wait for the single embedded connection while a large file indexes beside chat traffic:
 * small files then failed with "Unable to start a transaction in the given time" (bench:ingest
 * --under-load, load 17). The transaction itself is two updates.
 */
const STAGE_TX = { maxWait: 60_000, timeout: 60_000 };
/** Inputs per embedTexts call (it batches further itself); progress is reported between calls. */
const EMBED_GROUP = 50;

export interface RunnerOptions {
  db: PrismaClient;
  signal?: AbortSignal;
  concurrency?: number;
  /** This process alone uses the database (embedded PGlite): every `running` job at start-up
   *  belongs to a dead process. Default: true when DATABASE_URL is unset. */
  exclusive?: boolean;
  pollMs?: number;
  /** A running job whose lock was not refreshed for this long belongs to a dead worker. */
  staleAfterMs?: number;
  /** Time budget of one file: parsing AND indexing (INGEST_TIMEOUT_MS). */
  parseTimeoutMs?: number;
  maxPages?: number;
  /** Per-file content limits; unset ones come from the environment. */
  limits?: Partial<ContentLimits>;
  /** Heap of one parse thread (PARSE_MEMORY_MB). */
  parseMemoryMb?: number;
  /** Target time of one indexing transaction (INGEST_BATCH_MS). */
  batchMs?: number;
  chunk?: { targetChars: number; overlapChars: number };
  dataDir?: string;
  /** This runner's id in ingestion_jobs.locked_by (default: host, pid and a random part). */
  workerId?: string;
  /**
   * Several instances on one PostgreSQL server: every worker keeps a connection named
   * livenessName(its worker id) open (instance-relay.ts). A running job whose worker has no such
   * connection any more belongs to a killed instance and is requeued at once, not after
   * staleAfterMs. Only workers whose id starts with "live:" are judged this way.
   */
  liveness?: { name: (workerId: string) => string };
  /** Test hook: called at each stage; may throw or hang to simulate crashes. */
  onStage?: (stage: JobStage, fileId: string) => void | Promise<void>;
  /** Test hook: called before the graph stage writes; may throw to fail that stage alone. */
  onGraphStage?: (fileId: string) => void | Promise<void>;
  /** Test hook: called before each batch of a file's grep index (grep-index.ts); may hang or kill. */
  onGrepBatch?: (fileId: string, added: number) => void | Promise<void>;
  /** Test hook: called after each committed indexing batch (kill tests stop the process here). */
  onBatch?: (info: BatchInfo, fileId: string) => void | Promise<void>;
  /**
   * Test hook: called once the outcome of a job is known, before its terminal state is written
   * (the file is still non-terminal while it waits). Tests hold files here to prove that other
   * users' requests were answered while those files were still being processed.
   */
  beforeTerminal?: (fileId: string, outcome: { status: "success" } | { status: "failed"; code: string }) => void | Promise<void>;
}

interface ClaimedJob {
  id: string;
  file_id: string;
  knowledge_id: string;
  attempts: number;
}

interface ActiveJob {
  jobId: string;
  fileId: string;
  controller: AbortController;
  done: Promise<void>;
  /** False once the file is searchable and only its graph stage is left: no longer takes a slot. */
  indexing: boolean;
}

class Cancelled extends Error {
  constructor(readonly reason: "deleted" | "shutdown" | "lost-lock") {
    super(`cancelled: ${reason}`);
  }
}

const STAGE_PERCENT: Record<JobStage, number> = {
  queued: 0,
  parsing: 2,
  chunking: 42,
  embedding: 50,
  indexing: 88,
  success: 100,
  failed: 100,
};

export class IngestionRunner {
  readonly workerId: string;
  private readonly db: PrismaClient;
  /** The graph stage running in this process, if any: the next one starts after it. */
  private graphTurn: Promise<unknown> = Promise.resolve();
  /** Graph builds resumed by recovery (resumePendingGraphs): drain waits for them. */
  private resumedGraphs: Promise<void> = Promise.resolve();
  /** Graph stages waiting for this process to have no file being indexed (whenIndexingIdle). */
  private indexingIdleWaiters: Array<() => void> = [];
  /** Aborted by stop(): graph rebuilds resumed by recovery stop with it. */
  private readonly stopping = new AbortController();
  /** Settles after the loop's first look for queued jobs (so a wait for idle sees them). */
  private firstClaim!: Promise<void>;
  private firstClaimDone!: () => void;
  private readonly opts: Required<Pick<RunnerOptions, "concurrency" | "pollMs" | "staleAfterMs" | "parseTimeoutMs" | "maxPages" | "exclusive">> & RunnerOptions;
  private readonly active = new Map<string, ActiveJob>();
  private stopped = false;
  private wake: (() => void) | null = null;
  private kicked = false;
  private loopDone: Promise<void> | null = null;
  private lastStaleCheck = 0;

  constructor(options: RunnerOptions) {
    this.firstClaim = new Promise((resolve) => (this.firstClaimDone = resolve));
    const env = getEnv();
    this.db = options.db;
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.opts = {
      ...options,
      concurrency: options.concurrency ?? env.INGEST_CONCURRENCY,
      pollMs: options.pollMs ?? DEFAULT_POLL_MS,
      staleAfterMs: options.staleAfterMs ?? DEFAULT_STALE_MS,
      parseTimeoutMs: options.parseTimeoutMs ?? env.INGEST_TIMEOUT_MS,
      maxPages: options.maxPages ?? env.MAX_PDF_PAGES,
      exclusive: options.exclusive ?? !env.DATABASE_URL,
    };
    options.signal?.addEventListener("abort", () => void this.stop(), { once: true });
  }

  /** Starts the loop (recovery first). Resolves once recovery has run. */
  async start(): Promise<void> {
    // The server's runner keeps a parse thread ready: a small file's parse is mostly the
    // thread's start (~0.8 s of ~0.9 s for a short Markdown file; ParsePool.keepOneReady).
    getParsePool(this.opts.parseMemoryMb ?? getEnv().PARSE_MEMORY_MB).keepOneReady();
    await this.recover(true);
    // Temp files of uploads cut off by a crash were never acknowledged: remove old ones.
    void cleanupTempFiles(this.opts.dataDir).catch(() => {});
    this.loopDone = this.loop(false);
  }

  /** Processes queued jobs until none is left (tests, scripts, benchmarks). */
  async drain(): Promise<void> {
    await this.recover(true);
    await this.loop(true);
    await this.resumedGraphs;
  }

  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  /** Cancels the job of one file if this runner is processing it. */
  cancelFile(fileId: string, reason: "deleted" | "shutdown" = "deleted"): boolean {
    const a = this.active.get(fileId);
    if (!a) return false;
    a.controller.abort(new Cancelled(reason));
    return true;
  }

  isProcessing(fileId: string): boolean {
    return this.active.has(fileId);
  }

  /** Stops claiming; waits up to graceMs for running jobs, then cancels them (they are requeued). */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.stopped) return this.loopDone ?? undefined;
    this.stopped = true;
    this.stopping.abort(new Cancelled("shutdown"));
    this.firstClaimDone();
    this.wake?.();
    const all = [...this.active.values()];
    const settled = Promise.allSettled(all.map((a) => a.done));
    const timer = new Promise((r) => setTimeout(r, graceMs));
    await Promise.race([settled, timer]);
    for (const a of this.active.values()) a.controller.abort(new Cancelled("shutdown"));
    // A job stuck in a call that ignores the signal must not hold the shutdown forever.
    await Promise.race([settled, new Promise((r) => setTimeout(r, Math.max(1000, graceMs)))]);
    await this.loopDone;
  }

  // ------------------------------------------------------------------ loop and claiming

  /**
   * Resolves once no job of this process is being made searchable (parsed, chunked, indexed), or
   * at once if none is or `signal` is aborted. A graph stage waits for it: a file becoming
   * searchable comes before any file's graph, which is enrichment, costs CPU on this thread
   * (tagging) and writes on the one embedded connection the indexing needs. With files arriving
   * without pause the graphs wait until the queue is idle; their status says `pending` meanwhile.
   */
  private whenIndexingIdle(signal: AbortSignal): Promise<void> {
    if (signal.aborted || !this.indexingBusy()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener("abort", done);
        resolve();
      };
      signal.addEventListener("abort", done, { once: true });
      this.indexingIdleWaiters.push(done);
    });
  }

  private notifyIfIndexingIdle(): void {
    if (this.indexingBusy()) return;
    for (const done of this.indexingIdleWaiters.splice(0)) done();
  }

  private indexingBusy(): boolean {
    return [...this.active.values()].some((a) => a.indexing);
  }

  private async loop(drain: boolean): Promise<void> {
    let backoff = 0;
    while (!this.stopped) {
      try {
        if (!drain && !this.opts.exclusive && Date.now() - this.lastStaleCheck > this.opts.staleAfterMs / 2) {
          await this.recover(false);
        } else if (!drain && this.opts.liveness) {
          await this.recover(false, await this.deadWorkers());
        }
        // A job in its graph stage keeps its entry (cancel, shutdown, drain) but not its slot.
        const free = this.opts.concurrency - [...this.active.values()].filter((a) => a.indexing).length;
        let claimed: ClaimedJob[] = [];
        if (free > 0) claimed = await this.claim(free);
        for (const job of claimed) this.launch(job);
        this.firstClaimDone();
        backoff = 0;
        if (drain && claimed.length === 0 && this.active.size === 0) return;
        if (claimed.length > 0 && claimed.length === free) continue;
      } catch (e) {
        backoff = Math.min(30_000, (backoff || 500) * 2);
        console.error(`[ingestion] runner loop error: ${describeError(e)}`);
      }
      await this.sleep(backoff || this.opts.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.kicked) {
      this.kicked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      t.unref?.();
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        this.kicked = false;
        done();
      };
    });
  }

  private async claim(limit: number): Promise<ClaimedJob[]> {
    return this.db.$queryRawUnsafe<ClaimedJob[]>(
      `UPDATE ingestion_jobs AS j
          SET status = 'running', locked_by = $1, locked_at = now(), attempts = j.attempts + 1,
              updated_at = now(), error_code = NULL, error_message = NULL
         FROM (SELECT id FROM ingestion_jobs WHERE status = 'queued'
                ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED) AS c
        WHERE j.id = c.id
      RETURNING j.id, j.file_id, j.knowledge_id, j.attempts`,
      this.workerId,
      limit,
    );
  }

  /** Workers holding running jobs whose liveness connection is gone (see RunnerOptions.liveness). */
  private async deadWorkers(): Promise<string[]> {
    const rows = await this.db.$queryRawUnsafe<{ locked_by: string }[]>(
      `SELECT DISTINCT j.locked_by FROM ingestion_jobs j
        WHERE j.status = 'running' AND j.locked_by LIKE 'live:%' AND j.locked_by <> $1
          AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a
                           WHERE a.datname = current_database() AND a.application_name = $2 || substr(j.locked_by, 1, $3))`,
      this.workerId,
      this.opts.liveness!.name(""),
      63 - this.opts.liveness!.name("").length,
    );
    return rows.map((r) => r.locked_by);
  }

  private launch(job: ClaimedJob): void {
    const controller = new AbortController();
    const entry: ActiveJob = { jobId: job.id, fileId: job.file_id, controller, done: Promise.resolve(), indexing: true };
    // Another job of the same file still running here (reparse raced a recovery): cancel it.
    this.active.get(job.file_id)?.controller.abort(new Cancelled("lost-lock"));
    this.active.set(job.file_id, entry);
    entry.done = this.process(job, controller.signal)
      .catch((e) => console.error(`[ingestion] job ${job.id} crashed: ${describeError(e)}`))
      .finally(() => {
        if (this.active.get(job.file_id) === entry) this.active.delete(job.file_id);
        this.notifyIfIndexingIdle();
        this.kick();
      });
  }

  /**
   * Jobs left running by a dead process go back to the queue (or fail after MAX_ATTEMPTS).
   * `all`: at start-up of an exclusive runner every running job is orphaned; otherwise only
   * those whose lock is stale.
   */
  private async recover(startup: boolean, dead?: string[]): Promise<void> {
    if (dead?.length === 0) return;
    if (!dead) this.lastStaleCheck = Date.now();
    const cutoff = new Date(Date.now() - this.opts.staleAfterMs);
    const orphaned = await this.db.ingestionJob.findMany({
      where: {
        status: "running",
        ...(dead ? { lockedBy: { in: dead } } : startup && this.opts.exclusive ? {} : { OR: [{ lockedAt: null }, { lockedAt: { lt: cutoff } }] }),
        NOT: { lockedBy: this.workerId },
      },
      select: { id: true, fileId: true, attempts: true, lockedBy: true },
    });
    // Graphs whose building stopped with the process that ran it (lib/graph/stage.ts), and those
    // still waiting for their turn when it stopped (lib/graph/settings.ts).
    await recoverInterruptedGraphs(this.db, { all: startup && this.opts.exclusive, staleBefore: cutoff });
    // Resumed graphs wait like the runner's own graph stages: after the loop's first claim (the
    // jobs requeued above are then being indexed) and until no file is being indexed.
    const resumed = await resumePendingGraphs(this.db, {
      all: startup && this.opts.exclusive,
      staleBefore: cutoff,
      signal: this.stopping.signal,
      beforeEach: async () => {
        await this.firstClaim;
        await this.whenIndexingIdle(this.stopping.signal);
      },
    });
    this.resumedGraphs = Promise.all([this.resumedGraphs, resumed.done]).then(() => undefined);
    if (startup) this.resumeGrepIndexes();
    for (const j of orphaned) {
      const giveUp = j.attempts >= MAX_ATTEMPTS;
      const message = giveUp
        ? `Processing was interrupted ${j.attempts} times (the server stopped while working on this file). Use "reparse" to try again.`
        : "Requeued after the server restarted";
      const changed = await this.db.ingestionJob.updateMany({
        where: { id: j.id, status: "running", lockedBy: j.lockedBy },
        data: giveUp
          ? { status: "failed", stage: "failed", percent: 100, message, errorCode: "INTERNAL_ERROR", errorMessage: message, lockedBy: null, lockedAt: null, finishedAt: new Date() }
          : { status: "queued", stage: "queued", percent: 0, message, lockedBy: null, lockedAt: null },
      });
      if (changed.count === 0) continue;
      if (giveUp) {
        await this.failFile(j.fileId, "INTERNAL_ERROR", message);
        emitJobEvent(j.fileId, { type: "error", code: "INTERNAL_ERROR", message });
      } else {
        await this.db.knowledgeFile.updateMany({ where: { id: j.fileId }, data: { status: "queued" } });
        emitJobEvent(j.fileId, { type: "progress", stage: "queued", percent: 0, message });
      }
    }
  }

  // ------------------------------------------------------------------ one job

  private async process(job: ClaimedJob, signal: AbortSignal): Promise<void> {
    const { db } = this;
    const fileId = job.file_id;
    const file = await db.knowledgeFile.findUnique({ where: { id: fileId } });
    if (!file) {
      await db.ingestionJob.deleteMany({ where: { id: job.id } });
      return;
    }
    const hadChunks = (await db.chunk.count({ where: { fileId } })) > 0;
    // Set once indexing has started: from then on the previous chunks are gone.
    let indexingStarted = false;
    let lastWrite = 0;
    let heartbeat: NodeJS.Timeout | undefined;
    const owned = { id: job.id, lockedBy: this.workerId, status: "running" };

    const checkCancelled = () => {
      if (signal.aborted) throw signal.reason instanceof Cancelled ? signal.reason : new Cancelled("shutdown");
    };
    const report = async (stage: JobStage, percent: number, message: string, force = false) => {
      checkCancelled();
      const p = Math.max(0, Math.min(99, Math.round(percent)));
      const event = { type: "progress", stage, percent: p, message } as const;
      if (!force) {
        // Progress within a stage: the stage (file row, KB counts, assistant status) is unchanged.
        emitJobEvent(fileId, event);
        const now = Date.now();
        if (now - lastWrite < PROGRESS_WRITE_MS) return;
        lastWrite = now;
        const res = await db.ingestionJob.updateMany({ where: owned, data: { stage, percent: p, message, lockedAt: new Date() } });
        if (res.count === 0) throw new Cancelled("lost-lock");
        return;
      }
      // A new stage: the job and the file row change in one transaction, and the event goes out
      // only after it committed, so a client that reacts to it by reading the file row, the KB's
      // counts or the assistant's status (all derived from knowledge_files.status) reads the
      // same stage.
      lastWrite = Date.now();
      const moved = await db.$transaction(async (tx) => {
        const res = await tx.ingestionJob.updateMany({ where: owned, data: { stage, percent: p, message, lockedAt: new Date() } });
        if (res.count === 0) return false;
        await tx.knowledgeFile.updateMany({ where: { id: fileId }, data: { status: stage } });
        return true;
      }, STAGE_TX);
      if (!moved) throw new Cancelled("lost-lock");
      emitJobEvent(fileId, event);
      await this.opts.onStage?.(stage, fileId);
    };

    try {
      heartbeat = setInterval(() => {
        db.ingestionJob.updateMany({ where: owned, data: { lockedAt: new Date() } }).catch(() => {});
      }, HEARTBEAT_MS);
      heartbeat.unref?.();

      // ---- parsing
      await report("parsing", STAGE_PERCENT.parsing, "Parsing the document", true);
      // One budget for the whole file: the parse thread stops at its deadline, and indexing
      // checks it before every batch.
      const budget = makeBudget({ maxPages: this.opts.maxPages, timeoutMs: this.opts.parseTimeoutMs, signal });
      const env = getEnv();
      const limits = { ...limitsFromEnv(), ...this.opts.limits };
      // Parsing, chunking and tokenizing happen in a parse thread; "chunking" is reported when
      // it sends the chunk count (the document is parsed and chunked). Local disk: the file itself;
      // S3: a temp copy, removed after parsing. A missing original fails the job with
      // ORIGINAL_NOT_FOUND.
      let chunkingReported = false;
      const storage = await getStorage(this.opts.dataDir);
      // The chunks come in slices once the document is chunked (`incoming`); without an
      // embedding model the first ones are written while the thread still tokenizes the rest.
      const { feed, parsed: parsing } = parseWithFeed((hooks) =>
        storage.withLocalFile(file.storageKey, (filePath) =>
          getParsePool(this.opts.parseMemoryMb ?? env.PARSE_MEMORY_MB).run(
            {
              fileType: file.fileType as FileType,
              filePath,
              deadline: budget.deadline,
              timeoutMs: this.opts.parseTimeoutMs,
              maxPages: this.opts.maxPages,
              limits,
              chunk: this.opts.chunk ?? { targetChars: env.CHUNK_TARGET_CHARS, overlapChars: env.CHUNK_OVERLAP_CHARS },
            },
            {
              signal,
              onProgress: (f) => {
                if (chunkingReported) return;
                void report("parsing", STAGE_PERCENT.parsing + f * (STAGE_PERCENT.chunking - STAGE_PERCENT.parsing - 2), `Parsing: ${Math.round(f * 100)}%`).catch(() => {});
              },
              ...hooks,
            },
          ),
        ),
      );
      const incoming = await feed;
      checkCancelled();

      // ---- chunking (done in the parse thread; the stage is kept for the progress contract)
      chunkingReported = true;
      await report("chunking", STAGE_PERCENT.chunking, `Split into ${incoming.total} passages`, true);

      // ---- embedding: vectors are written with their chunks, so with a model the write waits
      // for every chunk and its vector (the model's time dominates there anyway).
      const embedding = getModelConfig().embedding;
      const whole = embedding ? await parsing : null;
      const emb = await this.embed(embedding, whole?.chunks ?? [], signal, (done, total) =>
        total === 0
          ? report("embedding", STAGE_PERCENT.embedding, "No embedding model is configured: skipped (keyword search only)", true)
          : report("embedding", STAGE_PERCENT.embedding + (done / total) * (STAGE_PERCENT.indexing - STAGE_PERCENT.embedding - 2), `Embedding ${done}/${total} passages`, done === 0),
      );
      checkCancelled();

      // ---- indexing (bounded batches: old chunks out, new chunks + terms + vectors in)
      await report("indexing", STAGE_PERCENT.indexing, `Indexing ${incoming.total} passages`, true);
      indexingStarted = true;
      const written = await writeFileChunksInBatches(db, {
        knowledgeId: file.knowledgeId,
        fileId,
        chunks: whole?.chunks ?? incoming,
        headingRuns: whole?.headingRuns,
        embeddings: emb.vectors ? { model: emb.model!, vectors: emb.vectors } : null,
        owner: { jobId: job.id, lockedBy: this.workerId },
        batchMs: this.opts.batchMs ?? env.INGEST_BATCH_MS,
        beforeBatch: () => {
          checkCancelled();
          budget.check();
        },
        afterBatch: async (info) => {
          if (info.phase === "insert") {
            const f = info.done / Math.max(1, info.total);
            await report("indexing", STAGE_PERCENT.indexing + f * (99 - STAGE_PERCENT.indexing), `Indexing ${info.done}/${info.total} passages`);
          }
          await this.opts.onBatch?.(info, fileId);
        },
      });
      checkCancelled();
      const parsed = await parsing;
      const doc = { pageCount: parsed.pageCount };
      const chunks = parsed.chunks;

      // ---- success
      await this.opts.beforeTerminal?.(fileId, { status: "success" });
      checkCancelled();
      const message = emb.status === "failed" ? `Ready for keyword search; ${emb.error}` : "Ready";
      const finished = await db.$transaction(async (tx) => {
        const j = await tx.ingestionJob.updateMany({
          where: owned,
          data: { status: "success", stage: "success", percent: 100, message, lockedBy: null, lockedAt: null, finishedAt: new Date(), errorCode: null, errorMessage: null },
        });
        if (j.count === 0) return false;
        // The graph is queued with the file's success (the chunks it was built from are gone):
        // `pending` until its turn comes, and resumed at the next start if the process stops first.
        const kb = await tx.knowledge.findUnique({ where: { id: file.knowledgeId }, select: { graphEnabled: true } });
        await tx.knowledgeFile.updateMany({
          where: { id: fileId },
          data: {
            status: "success",
            graphStatus: kb?.graphEnabled ? "pending" : "skipped",
            graphPercent: 0,
            graphUpdatedAt: new Date(),
            embeddingStatus: emb.status,
            // Its new chunks' text goes into grep_chunks' trigram index next (grep-index.ts).
            grepIndexed: false,
            pageCount: doc.pageCount,
            chunkCount: written,
            language: detectDocumentLanguage(chunks.map((c) => c.content)),
            errorCode: emb.status === "failed" ? "EMBEDDING_UNAVAILABLE" : null,
            errorMessage: emb.status === "failed" ? message : null,
          },
        });
        return true;
      }, STAGE_TX);
      if (!finished) throw new Cancelled("lost-lock");
      emitJobEvent(fileId, { type: "done", status: "success", chunk_count: written, page_count: doc.pageCount, embedding_status: emb.status, message });

      // ---- knowledge graph (lib/graph): after the file is searchable, with its own status and
      // failure reason on the file; it never fails the file. The job's slot is given back first,
      // so files still queued start indexing instead of waiting for this graph (on bench:ingest's
      // corpus the four small files waited behind the two large files' graph stages), and the
      // graph stages of this process run one at a time: they are background work, and each one
      // is CPU on this thread (tagging) and writes on the one embedded connection that the files
      // being indexed need first (issue 22).
      const entry = this.active.get(fileId);
      if (entry?.jobId === job.id) {
        entry.indexing = false;
        this.notifyIfIndexingIdle();
        this.kick();
      }
      // One background stage at a time, each after the files being indexed are searchable: the
      // file's graph, then its trigram entries for grep_chunks (until they are in, grep scans the
      // file's chunks: the same matches, found more slowly; the graph has no such stand-in).
      const stage = this.graphTurn.then(async () => {
        await this.whenIndexingIdle(signal);
        const graph = await runGraphStage(db, { knowledgeId: file.knowledgeId, fileId, signal, beforeWrite: this.opts.onGraphStage && (() => this.opts.onGraphStage!(fileId)) });
        await this.whenIndexingIdle(signal);
        await this.buildGrepIndex(fileId, signal);
        return graph;
      });
      this.graphTurn = stage.then(
        () => undefined,
        () => undefined,
      );
      await stage;
    } catch (e) {
      if (e instanceof IndexOwnershipLost) e = new Cancelled("lost-lock");
      if (e instanceof Cancelled || (signal.aborted && signal.reason instanceof Cancelled)) {
        const reason = e instanceof Cancelled ? e.reason : (signal.reason as Cancelled).reason;
        if (reason === "shutdown") {
          // Clean shutdown: back to the queue, this attempt not counted.
          const requeued = await db.ingestionJob
            .updateMany({ where: owned, data: { status: "queued", stage: "queued", percent: 0, message: "Requeued at shutdown", lockedBy: null, lockedAt: null, attempts: { decrement: 1 } } })
            .catch(() => ({ count: 0 }));
          // Only if this worker still held the job: another worker may have taken it over (and
          // finished it) after this one was presumed dead.
          if (requeued.count > 0) {
            await db.knowledgeFile.updateMany({ where: { id: fileId }, data: { status: "queued" } }).catch(() => {});
            emitJobEvent(fileId, { type: "progress", stage: "queued", percent: 0, message: "Requeued at shutdown" });
            announceQueuedJobs(); // another instance takes it now
          }
        }
        return;
      }
      if (isConnectionLost(e) && job.attempts < MAX_ATTEMPTS) {
        // The database connection dropped mid-job (server restart, failover, a killed backend):
        // the job goes back to the queue as an attempt; the next one starts by deleting whatever
        // this one wrote, so it ends with one copy of each chunk.
        const message = "Requeued: the database connection was lost while processing this file";
        const requeued = await db.ingestionJob
          .updateMany({ where: owned, data: { status: "queued", stage: "queued", percent: 0, message, lockedBy: null, lockedAt: null } })
          .catch(() => ({ count: 0 }));
        if (requeued.count > 0) {
          await db.knowledgeFile.updateMany({ where: { id: fileId }, data: { status: "queued" } }).catch(() => {});
          emitJobEvent(fileId, { type: "progress", stage: "queued", percent: 0, message });
        }
        console.error(`[ingestion] job ${job.id}: ${message} (${describeError(e)})`);
        return;
      }
      const failure = toFailure(e);
      await this.opts.beforeTerminal?.(fileId, { status: "failed", code: failure.code });
      const j = await db.ingestionJob
        .updateMany({
          where: owned,
          data: { status: "failed", stage: "failed", percent: 100, message: failure.message, errorCode: failure.code, errorMessage: failure.message, lockedBy: null, lockedAt: null, finishedAt: new Date() },
        })
        .catch(() => ({ count: 0 }));
      if (j.count === 0) return; // deleted, or taken over by another worker
      if (indexingStarted) {
        // Part of the new index may be written and the previous one is gone: remove it, so the
        // file's chunk count and its index agree (a reparse starts again from nothing).
        await deleteFileChunksInBatches(db, fileId).catch((err) => console.error(`[ingestion] could not remove the partial index of ${fileId}: ${describeError(err)}`));
        await this.failFile(fileId, failure.code, failure.message);
        emitJobEvent(fileId, { type: "error", code: failure.code, message: failure.message });
      } else if (hadChunks && (await db.chunk.count({ where: { fileId } })) > 0) {
        // A reparse that failed: the previous chunks are still there and still searchable.
        const message = `Reparse failed: ${failure.message} The previous index is still in use.`;
        await db.knowledgeFile.updateMany({ where: { id: fileId }, data: { status: "success", errorCode: failure.code, errorMessage: message } });
        emitJobEvent(fileId, { type: "error", code: failure.code, message });
      } else {
        await this.failFile(fileId, failure.code, failure.message);
        emitJobEvent(fileId, { type: "error", code: failure.code, message: failure.message });
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Adds a searchable file's chunks to grep_chunks' trigram index (lib/retrieval/grep-index.ts).
   * Background work: a failure is logged and never fails the file (grep scans its chunks
   * meanwhile), and the next start-up takes the file up again.
   */
  private async buildGrepIndex(fileId: string, signal: AbortSignal): Promise<void> {
    try {
      await buildGrepIndex(this.db, fileId, {
        batchMs: this.opts.batchMs ?? getEnv().INGEST_BATCH_MS,
        signal,
        beforeBatch: this.opts.onGrepBatch && ((added) => this.opts.onGrepBatch!(fileId, added)),
      });
    } catch (e) {
      if (signal.aborted) throw e;
      console.error(`[ingestion] the grep index of ${fileId} was not built: ${describeError(e)}`);
    }
  }

  /**
   * Files searchable but not yet in grep_chunks' trigram index when the process stopped (or
   * indexed before migration 20261214000000): built in the background, one at a time, each
   * after the files being indexed are searchable, however many there are (paged by id).
   */
  private resumeGrepIndexes(): void {
    const signal = this.stopping.signal;
    const all = this.graphTurn.then(async () => {
      for (let after = ""; ; ) {
        const files = await filesAwaitingGrepIndex(this.db, after);
        if (!files.length) return;
        for (const fileId of files) {
          await this.firstClaim;
          await this.whenIndexingIdle(signal);
          if (signal.aborted) return;
          await this.buildGrepIndex(fileId, signal);
        }
        after = files[files.length - 1]!;
      }
    });
    this.graphTurn = all.then(
      () => undefined,
      () => undefined,
    );
    this.resumedGraphs = Promise.all([this.resumedGraphs, this.graphTurn]).then(() => undefined);
  }

  private async failFile(fileId: string, code: string, message: string): Promise<void> {
    await this.db.knowledgeFile.updateMany({
      where: { id: fileId },
      data: { status: "failed", errorCode: code, errorMessage: message, embeddingStatus: "skipped", chunkCount: 0 },
    });
  }

  private async embed(
    cfg: ReturnType<typeof getModelConfig>["embedding"],
    chunks: ChunkInput[],
    signal: AbortSignal,
    progress: (done: number, total: number) => Promise<void>,
  ): Promise<{ status: "skipped" | "success" | "failed"; model?: string; vectors?: number[][]; error?: string }> {
    if (!cfg) {
      await progress(0, 0);
      return { status: "skipped" };
    }
    const inputs = chunks.map((c) => (c.headingPath ? `${c.headingPath}\n${c.content}` : c.content));
    const vectors: number[][] = [];
    try {
      await progress(0, inputs.length);
      for (let i = 0; i < inputs.length; i += EMBED_GROUP) {
        const part = await embedTexts({
          baseUrl: cfg.baseUrl,
          apiKey: cfg.apiKey,
          model: cfg.model,
          dimensions: cfg.dimensions,
          inputs: inputs.slice(i, i + EMBED_GROUP),
          signal,
          timeoutMs: cfg.timeoutMs,
        });
        vectors.push(...part);
        await progress(Math.min(inputs.length, i + EMBED_GROUP), inputs.length);
      }
      return { status: "success", model: cfg.model, vectors };
    } catch (e) {
      if (e instanceof Cancelled || signal.aborted) throw e;
      const detail = isAppError(e) ? publicMessageOf(e, "[ingestion]") : describeError(e);
      return { status: "failed", error: `the embedding model failed (${detail}), so vector search is not available for this file. Reparse it when the model is back.` };
    }
  }
}

/**
 * A lost database connection rather than a failure of the file: PostgreSQL's "terminating
 * connection" (57P01..57P03), a socket closed under the driver, or Prisma's codes for them.
 */
export function isConnectionLost(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    const c = cur as { code?: unknown; message?: unknown; originalCode?: unknown };
    const code = String(c.code ?? c.originalCode ?? "");
    if (/^(57P0[123]|08\d\d\d|P1001|P1017|ECONNRESET|ECONNREFUSED|EPIPE)$/.test(code)) return true;
    if (typeof c.message === "string" && /terminating connection|Connection terminated|server closed the connection|connection (?:was )?(?:lost|closed)|ECONNRESET|Client has encountered a connection error/i.test(c.message)) return true;
  }
  return false;
}

/** The per-file content limits the environment sets (issue 16). */
function limitsFromEnv(): ContentLimits {
  const env = getEnv();
  return {
    ...DEFAULT_CONTENT_LIMITS,
    maxTextChars: env.MAX_EXTRACTED_CHARS,
    maxChunks: env.MAX_CHUNKS_PER_FILE,
    pdfMaxInflatedBytes: env.PDF_MAX_INFLATED_MB * 1024 * 1024,
    pdfMaxItemsPerPage: env.PDF_MAX_TEXT_ITEMS_PER_PAGE,
    pdfMaxPageMs: env.PDF_MAX_PAGE_MS,
  };
}

function toFailure(e: unknown): IngestionFailure {
  if (e instanceof IngestionFailure) return e;
  if (isAppError(e)) return new IngestionFailure(e.code, publicMessageOf(e, "[ingestion]"));
  return new IngestionFailure("INTERNAL_ERROR", `Indexing failed unexpectedly (${describeError(e)}). Try "reparse"; if it fails again, report it.`);
}

// ---------------------------------------------------------------------- process-wide runner

const g = globalThis as unknown as { __kaIngestRunner?: IngestionRunner };

/** Starts the process-wide runner (idempotent). Call once from server start-up. */
export async function startIngestionRunner(options: RunnerOptions): Promise<IngestionRunner> {
  if (g.__kaIngestRunner) return g.__kaIngestRunner;
  const runner = new IngestionRunner(options);
  g.__kaIngestRunner = runner;
  try {
    await runner.start();
  } catch (e) {
    g.__kaIngestRunner = undefined;
    throw e;
  }
  return runner;
}

/** Wakes the runner (new jobs were queued). A no-op when no runner runs in this process. */
export function kickRunner(): void {
  g.__kaIngestRunner?.kick();
  announceQueuedJobs();
}

export async function stopIngestionRunner(graceMs?: number): Promise<void> {
  const r = g.__kaIngestRunner;
  g.__kaIngestRunner = undefined;
  await r?.stop(graceMs);
}

export function getIngestionRunner(): IngestionRunner | undefined {
  return g.__kaIngestRunner;
}

/** Processes every queued job with a private runner, then returns (tests, scripts, seeding). */
export async function runPendingJobs(options: RunnerOptions): Promise<void> {
  await new IngestionRunner(options).drain();
}

// ---------------------------------------------------------------------- file operations

/**
 * Deletes a file of a KB: its row (chunks, terms and jobs cascade in the same statement), then
 * the original. A job running for it in this process is cancelled; on another instance the job
 * finds the row gone and stops without writing.
 */
export async function deleteKnowledgeFile(
  db: PrismaClient,
  args: { knowledgeId: string; fileId: string; dataDir?: string },
): Promise<{ fileId: string; chunkCount: number }> {
  const file = await db.knowledgeFile.findFirst({ where: { id: args.fileId, knowledgeId: args.knowledgeId } });
  if (!file) throw new AppError("FILE_NOT_FOUND");
  g.__kaIngestRunner?.cancelFile(file.id, "deleted");
  const chunkCount = await db.chunk.count({ where: { fileId: file.id } });
  await db.$transaction(async (tx) => {
    await tx.knowledgeFile.deleteMany({ where: { id: file.id } });
    await tx.knowledge.updateMany({ where: { id: args.knowledgeId }, data: { updatedAt: new Date() } });
  });
  await (await getStorage(args.dataDir))
    .delete(file.storageKey)
    .catch((e) => console.error(`[ingestion] could not delete original ${file.storageKey}: ${describeError(e)}`));
  emitJobEvent(file.id, { type: "error", code: "FILE_NOT_FOUND", message: "The file was deleted." });
  return { fileId: file.id, chunkCount };
}

/**
 * Queues a new parse of a file. The current chunks stay until the new ones are written (one
 * transaction); if the new parse fails they stay in use. A file already queued or being
 * processed is left as it is.
 */
export async function reparseKnowledgeFile(
  db: PrismaClient,
  args: { knowledgeId: string; fileId: string },
): Promise<{ fileId: string; jobId: string; status: "queued" | "running"; alreadyQueued: boolean }> {
  const result = await db.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM knowledge_files WHERE id = ${args.fileId} AND knowledge_id = ${args.knowledgeId} FOR UPDATE`;
    if (!locked.length) throw new AppError("FILE_NOT_FOUND");
    const active = await tx.ingestionJob.findFirst({
      where: { fileId: args.fileId, status: { in: ["queued", "running"] } },
      orderBy: { createdAt: "desc" },
    });
    if (active) return { fileId: args.fileId, jobId: active.id, status: active.status as "queued" | "running", alreadyQueued: true };
    const jobId = randomUUID();
    await tx.ingestionJob.create({
      data: { id: jobId, knowledgeId: args.knowledgeId, fileId: args.fileId, status: "queued", stage: "queued", percent: 0, message: "Waiting to be parsed again" },
    });
    await tx.knowledgeFile.update({
      where: { id: args.fileId },
      data: { status: "queued", embeddingStatus: "pending", errorCode: null, errorMessage: null },
    });
    return { fileId: args.fileId, jobId, status: "queued" as const, alreadyQueued: false };
  });
  if (!result.alreadyQueued) {
    emitJobEvent(args.fileId, { type: "progress", stage: "queued", percent: 0, message: "Waiting to be parsed again" });
    kickRunner();
  }
  return result;
}

export type { JobEvent };
