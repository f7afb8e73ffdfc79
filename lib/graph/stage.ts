import "server-only";
// The graph stage of ingestion. It runs after indexing, once the file is searchable, with its
// own status, progress and failure reason on the file (graph_status, graph_percent,
// graph_error_*); a failure here is the graph's alone and never fails the file.
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { getEnv } from "@/lib/env";
import { isAppError } from "@/lib/errors";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { getModelConfig } from "@/lib/models/config";
import { GraphBuilder } from "./build";
import { extractWithModel } from "./extract-model";
import { DELETE_FILE_GRAPH_SQL, writeFileGraph } from "./store";

export type GraphStatus = "pending" | "building" | "success" | "failed" | "skipped";

export interface GraphStageResult {
  status: GraphStatus;
  entities: number;
  relations: number;
  tokens: number;
  message: string;
}

export interface GraphStageOptions {
  knowledgeId: string;
  fileId: string;
  signal?: AbortSignal;
  /** Test hook (the runner's onStage): may throw to simulate a failure of this stage. */
  beforeWrite?: () => void | Promise<void>;
}

const PROGRESS_WRITE_MS = 500;
/** Chunks extracted between two yields to the event loop (jieba tagging is synchronous). */
const YIELD_EVERY = 8;
/** Chunks read per statement. */
const READ_PAGE = 500;

async function setStatus(db: PrismaClient, fileId: string, data: Record<string, unknown>): Promise<void> {
  await db.knowledgeFile.updateMany({ where: { id: fileId }, data: { ...data, graphUpdatedAt: new Date() } });
}

/** Builds (or skips) the graph of one indexed file. Never throws, except when `signal` aborts. */
export async function runGraphStage(db: PrismaClient, opts: GraphStageOptions): Promise<GraphStageResult> {
  const { fileId, knowledgeId } = opts;
  const signal = opts.signal ?? new AbortController().signal;
  // A stage that waited its turn (lib/ingestion/runner.ts) behind a cancelled job does nothing.
  if (signal.aborted) throw signal.reason;
  const kb = await db.knowledge.findUnique({ where: { id: knowledgeId }, select: { graphEnabled: true, graphModelEnabled: true } });
  if (!kb) return { status: "skipped", entities: 0, relations: 0, tokens: 0, message: "knowledge base deleted" };
  if (!kb.graphEnabled) {
    await setStatus(db, fileId, { graphStatus: "skipped", graphPercent: 0, graphErrorCode: null, graphErrorMessage: null, graphTokens: 0 });
    return { status: "skipped", entities: 0, relations: 0, tokens: 0, message: "The knowledge graph is turned off for this knowledge base." };
  }
  let tokens = 0;
  let lastWrite = 0;
  const progress = async (percent: number) => {
    if (Date.now() - lastWrite < PROGRESS_WRITE_MS) return;
    lastWrite = Date.now();
    await setStatus(db, fileId, { graphPercent: Math.max(0, Math.min(99, Math.round(percent))) });
  };
  // The claim: only a file whose graph is `pending` is built, and only by the one caller that
  // moves it to `building`. A graph left pending by a stopped process is resumed at the next start
  // (resumePendingGraphs), possibly by another instance, while the process that queued it may be
  // alive and reach it later: whichever claims first builds it, the other skips it.
  const claimed = await db.knowledgeFile.updateMany({
    where: { id: fileId, graphStatus: "pending" },
    data: { graphStatus: "building", graphPercent: 0, graphErrorCode: null, graphErrorMessage: null, graphTokens: 0, graphUpdatedAt: new Date() },
  });
  if (claimed.count === 0) return { status: "skipped", entities: 0, relations: 0, tokens: 0, message: "The graph of this file is built, or being built, by another run." };
  try {
    const builder = new GraphBuilder();
    const chat = kb.graphModelEnabled ? getModelConfig().chat : null;
    const offlineShare = chat ? 30 : 90;
    // The chunks are read a page at a time, in order: read at once, a large file's text was one
    // statement holding the embedded database (490 ms for 19,113 chunks) and one result to map
    // on this thread (160 ms), and every request waited behind them (session 21).
    const total = await db.chunk.count({ where: { fileId } });
    const chunks: Array<{ id: string; content: string }> = [];
    for (let after = -1; ; ) {
      const page = await db.chunk.findMany({ where: { fileId, ordinal: { gt: after } }, orderBy: { ordinal: "asc" }, take: READ_PAGE, select: { id: true, content: true, ordinal: true } });
      if (page.length === 0) break;
      after = page.at(-1)!.ordinal;
      for (const c of page) {
        const chunk = { id: c.id, content: c.content };
        chunks.push(chunk);
        builder.addChunk(chunk);
        if (chunks.length % YIELD_EVERY === 0) {
          if (signal.aborted) throw signal.reason;
          await yieldToLoop();
          await progress((chunks.length / Math.max(total, chunks.length)) * offlineShare);
        }
      }
    }
    let skippedChunks = 0;
    if (chat) {
      const extraction = await extractWithModel(chat, chunks, {
        concurrency: getEnv().GRAPH_MODEL_CONCURRENCY,
        signal,
        onDone: (done, total) => void progress(offlineShare + (done / total) * (90 - offlineShare)).catch(() => {}),
      });
      tokens = extraction.tokens;
      skippedChunks = extraction.skipped;
      for (const r of extraction.results) builder.addModelResult(r);
    }
    if (signal.aborted) throw signal.reason;
    await opts.beforeWrite?.();
    const written = await writeFileGraph(db, { knowledgeId, fileId, graph: builder.finish() });
    if (!written) {
      // The file was deleted, or reparsed, since its chunks were read: the new chunks' own graph
      // stage writes their graph and the file's graph status (this one must not overwrite it).
      return { status: "skipped", entities: 0, relations: 0, tokens, message: "The file's passages changed while its graph was built." };
    }
    const message = skippedChunks > 0 ? `The model's answer was unusable for ${skippedChunks} of ${chunks.length} passages; those kept the offline extractor's entities only.` : null;
    await setStatus(db, fileId, { graphStatus: "success", graphPercent: 100, graphTokens: tokens, graphErrorCode: null, graphErrorMessage: message });
    return { status: "success", entities: written.entities, relations: written.relations, tokens, message: message ?? "Graph built" };
  } catch (e) {
    if (signal.aborted) {
      // Shutdown, delete or reparse before anything was written (writeFileGraph takes no signal,
      // so an abort cannot stop it halfway): the graph is pending again, and the next start (or
      // the reparse's own stage) builds it, instead of a failure the user must reparse away.
      // (A write that failed on its own while the signal fired may have left some groups: those go.)
      const back = await db.knowledgeFile
        .updateMany({ where: { id: fileId, graphStatus: "building" }, data: { graphStatus: "pending", graphPercent: 0, graphUpdatedAt: new Date() } })
        .catch(() => ({ count: 0 }));
      if (back.count > 0) await db.$executeRawUnsafe(DELETE_FILE_GRAPH_SQL, fileId).catch(() => {});
      throw e;
    }
    const detail = isAppError(e) ? e.message : e instanceof Error ? e.message : String(e);
    const message = `Building the knowledge graph failed (${detail.slice(0, 300)}). The file is still searchable; reparse it to try again.`;
    console.error(`[graph] file ${fileId}: ${detail}`);
    await setStatus(db, fileId, { graphStatus: "failed", graphPercent: 100, graphTokens: tokens, graphErrorCode: isAppError(e) ? e.code : "INTERNAL_ERROR", graphErrorMessage: message }).catch(() => {});
    return { status: "failed", entities: 0, relations: 0, tokens, message };
  }
}

/**
 * Graphs left `building` by a process that stopped: every one at the start of the only process
 * (embedded PGlite), otherwise those not updated since `staleBefore`.
 */
export async function recoverInterruptedGraphs(db: PrismaClient, opts: { all: boolean; staleBefore: Date }): Promise<number> {
  const where = { graphStatus: "building", ...(opts.all ? {} : { OR: [{ graphUpdatedAt: null }, { graphUpdatedAt: { lt: opts.staleBefore } }] }) };
  // A graph is written group by group (writeFileGraph): what a stopped process wrote of it is
  // removed, so a file's graph is either whole or absent.
  for (const f of await db.knowledgeFile.findMany({ where, select: { id: true } })) await db.$executeRawUnsafe(DELETE_FILE_GRAPH_SQL, f.id);
  const res = await db.knowledgeFile.updateMany({
    where,
    data: {
      graphStatus: "failed",
      graphErrorCode: "INTERNAL_ERROR",
      graphErrorMessage: "The server stopped while building the knowledge graph of this file. The file is searchable; reparse it to build the graph again.",
      graphUpdatedAt: new Date(),
    },
  });
  return res.count;
}
