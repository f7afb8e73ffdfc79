import "server-only";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { IndexableChunk } from "@/lib/retrieval/index-writer";
import type { HeadingTermRun } from "@/lib/retrieval/chunk-postings";
import type { ParseMessage, ParseTask } from "./parse-task";
import { IngestionFailure } from "./types";

// Parse worker threads (issue 22, issue 16 item 2). Parsing a 10 MB Markdown file or a
// 1,500-page PDF and tokenizing its chunks is tens of seconds of CPU; on the server's main
// thread every request waited for it. Each task runs in a worker thread with a heap limit (a
// parse cannot take the server's memory) and a hard deadline enforced from this side with
// terminate(), which holds even while the parser never yields; a thread that was terminated or
// failed is discarded, so whatever it allocated is freed with it. Starting a thread costs ~0.8 s
// (the loader, the tokenizer's dictionaries, pdf.js: most of a small file's parse), so threads
// are started ahead of their tasks: the server's runner keeps one ready (keepOneReady); a used
// thread is kept 30 s for the next file.

export interface ParseResult {
  pageCount: number | null;
  chunks: IndexableChunk[];
  textChars: number;
  headingRuns: HeadingTermRun[];
}

export interface ParsePoolOptions {
  /** Heap limit of one parse (MB). */
  memoryMb: number;
  /** Idle threads are ended after this long. */
  idleMs?: number;
}

const IDLE_MS = 30_000;

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  idleTimer?: NodeJS.Timeout;
  /** Has run a task: its heap holds what that parse left (ended after the idle time). */
  used?: boolean;
  /** Reported ready once. */
  started?: boolean;
}

function workerEntry(): string {
  return path.join(/* turbopackIgnore: true */ process.cwd(), "lib", "ingestion", "parse-worker.mjs");
}

export class ParsePool {
  private readonly idle: Slot[] = [];
  private closed = false;
  private resident = false;

  constructor(private readonly opts: ParsePoolOptions) {}

  private spawn(): Slot {
    const worker = new Worker(workerEntry(), {
      execArgv: ["--conditions=react-server"],
      resourceLimits: { maxOldGenerationSizeMb: this.opts.memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(16, this.opts.memoryMb / 16)) },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    // Always listened to: an 'error' event without a listener would throw in this process.
    worker.on("error", (e) => console.error(`[ingestion] parse worker error: ${e.message.slice(0, 200)}`));
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (m: { type: string }) => {
        if (m.type !== "ready") return;
        worker.off("message", onMessage);
        worker.off("error", reject);
        resolve();
      };
      worker.on("message", onMessage);
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`parse worker exited (${code}) before it was ready`)));
    });
    const slot: Slot = { worker, ready };
    ready.then(() => (slot.started = true)).catch(() => {});
    // A thread that ended while idle (a crash) is not handed a task; with keepOneReady a fresh
    // one takes its place, unless it never got as far as ready (a thread that cannot start
    // would only be started again and again).
    worker.once("exit", () => {
      const i = this.idle.indexOf(slot);
      if (i < 0) return; // ended by this pool (idle time, failure, close) or while running a task
      this.idle.splice(i, 1);
      clearTimeout(slot.idleTimer);
      if (this.resident && slot.started) this.warm();
    });
    return slot;
  }

  /**
   * Starts a thread ahead of a task that is about to come, so that the task does not pay the
   * thread's start: its loader, the tokenizer's dictionaries and pdf.js, ~0.8 s on this machine,
   * most of a small file's parse. No-op when a thread is already idle.
   */
  warm(): void {
    if (this.closed || this.idle.length > 0) return;
    const slot = this.spawn();
    this.park(slot);
  }

  /**
   * From now on one thread is always ready (the server's runner): a thread that has never run a
   * task is kept without an idle time, a fresh one is started when a task takes the last idle
   * thread or when the last idle thread ends (its idle time, a failure, a crash). A
   * used thread is not kept beyond the idle time: what a large parse grew its heap to is given
   * back when it ends. Costs one idle thread's memory (~110 MB RSS with pdf.js and the
   * dictionaries loaded; docs/bench-ingest-under-load.md, session 24).
   */
  keepOneReady(): void {
    this.resident = true;
    this.warm();
  }

  /** Thread ids of the idle threads, oldest first (tests, diagnostics). */
  idleThreadIds(): number[] {
    return this.idle.map((s) => s.worker.threadId);
  }

  /** Settles once every idle thread has reported ready (or failed to start). */
  async idleReady(): Promise<void> {
    await Promise.allSettled(this.idle.map((s) => s.ready));
  }

  /** Keeps a thread for the next task, ending it after the idle time (see keepOneReady). */
  private park(slot: Slot): void {
    this.idle.push(slot);
    if (this.resident && !slot.used) return;
    slot.idleTimer = setTimeout(() => {
      const i = this.idle.indexOf(slot);
      if (i >= 0) this.idle.splice(i, 1);
      void slot.worker.terminate();
      if (this.resident) this.warm();
    }, this.opts.idleMs ?? IDLE_MS);
    slot.idleTimer.unref?.();
  }

  /**
   * Runs one parse task. Resolves with the document's indexable chunks; rejects with an
   * IngestionFailure (limits, damaged file, time budget, memory) or the signal's reason.
   */
  async run(
    task: ParseTask,
    opts: {
      signal?: AbortSignal;
      onProgress?: (fraction: number) => void;
      /** The document is chunked: how many chunks its slices will bring. */
      onChunked?: (chunkCount: number) => void;
      /** One slice of chunks, in order, as it arrives (the result has them all as well). */
      onChunks?: (items: IndexableChunk[]) => void;
    } = {},
  ): Promise<ParseResult> {
    if (this.closed) throw new Error("parse pool is closed");
    const slot = this.idle.pop() ?? this.spawn();
    clearTimeout(slot.idleTimer);
    slot.used = true;
    // The next file (a small one uploaded while this one parses) finds a thread ready too.
    if (this.resident) this.warm();
    const { worker } = slot;
    let reusable = false;
    try {
      await slot.ready;
      const result = await new Promise<ParseResult>((resolve, reject) => {
        const chunks: IndexableChunk[] = [];
        let settled = false;
        const settle = (fn: () => void) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          opts.signal?.removeEventListener("abort", onAbort);
          worker.off("message", onMessage);
          worker.off("error", onError);
          worker.off("exit", onExit);
          fn();
        };
        const seconds = Math.round(task.timeoutMs / 1000);
        const timer = setTimeout(
          () => settle(() => reject(new IngestionFailure("FILE_TOO_LARGE", `Parsing took longer than the ${seconds} s time budget of one file (parsing and indexing). Split the document into smaller files and upload them again.`))),
          Math.max(0, task.deadline - Date.now()) + 100,
        );
        const onAbort = () => settle(() => reject(opts.signal!.reason));
        const onMessage = (m: ParseMessage | { type: "idle" }) => {
          if (m.type === "progress") opts.onProgress?.(m.fraction);
          else if (m.type === "chunked") opts.onChunked?.(m.chunkCount);
          else if (m.type === "chunks") {
            for (const c of m.items) chunks.push(c);
            opts.onChunks?.(m.items);
            // The thread sends its next slice once this one is taken; the answer goes out after
            // the requests that arrived meanwhile had their turn (setImmediate runs after I/O).
            setImmediate(() => {
              if (!settled) worker.postMessage({ type: "taken" });
            });
          }
          else if (m.type === "done") settle(() => resolve({ pageCount: m.pageCount, chunks, textChars: m.textChars, headingRuns: m.headingRuns }));
          else if (m.type === "failed") settle(() => reject(new IngestionFailure(m.code, m.message)));
        };
        const onError = (e: Error & { code?: string }) =>
          settle(() =>
            reject(
              e.code === "ERR_WORKER_OUT_OF_MEMORY"
                ? new IngestionFailure("FILE_TOO_LARGE", `Parsing this file needs more than ${this.opts.memoryMb} MB of memory, the limit per file (PARSE_MEMORY_MB). Split it into smaller files and upload them again.`)
                : new IngestionFailure("INTERNAL_ERROR", `The parser stopped unexpectedly (${e.message.slice(0, 200)}). Try "reparse"; if it fails again, report it.`),
            ),
          );
        const onExit = (code: number) => settle(() => reject(new IngestionFailure("INTERNAL_ERROR", `The parser stopped unexpectedly (exit ${code}). Try "reparse"; if it fails again, report it.`)));
        if (opts.signal?.aborted) return onAbort();
        opts.signal?.addEventListener("abort", onAbort, { once: true });
        worker.on("message", onMessage);
        worker.on("error", onError);
        worker.on("exit", onExit);
        worker.postMessage(task);
      });
      reusable = true;
      return result;
    } finally {
      // Only a thread whose task completed is reused: after a failure the parser may still be
      // working in the background (pdf.js goes on with a page whose stream was cancelled).
      if (reusable && !this.closed) {
        // The worker posts "idle" after its last message; a new task queued behind it is fine.
        this.park(slot);
      } else {
        void worker.terminate();
        if (this.resident) this.warm();
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = this.idle.splice(0);
    await Promise.all(all.map((s) => (clearTimeout(s.idleTimer), s.worker.terminate())));
  }
}

const g = globalThis as unknown as { __kaParsePool?: ParsePool };

/** The process-wide pool (on globalThis: Next bundles modules more than once). */
export function getParsePool(memoryMb: number): ParsePool {
  g.__kaParsePool ??= new ParsePool({ memoryMb });
  return g.__kaParsePool;
}
