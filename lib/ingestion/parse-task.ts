import "server-only";
import { chunkPostings, headingTermRuns, type HeadingTermRun, type IndexableChunk } from "@/lib/retrieval/chunk-postings";
import { chunkDocument } from "./chunker";
import { parseFile } from "./parse";
import { loadPdfJs } from "./parsers/pdf";
import { loadTokenizer } from "@/lib/retrieval/text/tokenize";
import type { FileType } from "./sniff";
import { IngestionFailure, makeBudget, type ContentLimits } from "./types";

// The CPU-heavy part of one ingestion job — parsing, chunking and tokenizing — as run inside a
// parse worker thread (parse-worker.mjs, driven by parse-pool.ts), so that none of it runs on
// the thread that serves requests (issue 22). Only plain data crosses: the task in, progress and
// the indexable chunks out, in slices small enough that receiving one never stalls the server.

export interface ParseTask {
  fileType: FileType;
  filePath: string;
  /** Epoch ms: the job's time budget (parsing and indexing) ends here. */
  deadline: number;
  timeoutMs: number;
  maxPages: number;
  limits: ContentLimits;
  chunk: { targetChars: number; overlapChars: number };
}

export type ParseMessage =
  | { type: "progress"; fraction: number }
  | { type: "chunked"; chunkCount: number }
  | { type: "chunks"; items: IndexableChunk[] }
  | { type: "done"; pageCount: number | null; chunkCount: number; textChars: number; headingRuns: HeadingTermRun[] }
  | { type: "failed"; code: IngestionFailure["code"]; message: string };

/** Chunks per message: a few hundred KB of structured clone, a millisecond or two to receive. */
const SLICE = 200;

function tooManyChunks(found: number, limit: number): IngestionFailure {
  return new IngestionFailure(
    "FILE_TOO_LARGE",
    `The document splits into ${found.toLocaleString("en-US")} passages; the limit is ${limit.toLocaleString("en-US")} passages per file. Split it into smaller files and upload them again.`,
  );
}

/**
 * What a parse thread loads before it reports ready, so that a thread started ahead of a task
 * (ParsePool.warm) leaves the task nothing to load: the tokenizer's dictionaries and pdf.js.
 */
export async function prepareParseThread(): Promise<void> {
  loadTokenizer();
  await loadPdfJs();
}

/**
 * `post` sends one message to the server's thread. For a `chunks` message it may return a promise
 * that settles once the receiver has taken that slice: the next slice waits for it. (Posted
 * back to back, a large file's slices queued up and the receiving thread took them all in one
 * turn of its event loop — 135 ms for the 19,113 chunks of bench:ingest's Markdown file, during
 * which no request was answered; session 21.)
 */
export async function runParseTask(task: ParseTask, post: (m: ParseMessage) => void | Promise<void>): Promise<void> {
  try {
    const budget = makeBudget({ maxPages: task.maxPages, timeoutMs: task.timeoutMs, deadline: task.deadline, limits: task.limits });
    const doc = await parseFile(task.fileType, task.filePath, { budget, onProgress: (fraction) => post({ type: "progress", fraction }) });
    budget.check();
    const chunks = chunkDocument(doc, task.chunk);
    if (chunks.length === 0) throw new IngestionFailure("FILE_TYPE_UNSUPPORTED", "The document contains no text to index.");
    // Refused before indexing starts: nothing of this file is written.
    if (chunks.length > task.limits.maxChunks) throw tooManyChunks(chunks.length, task.limits.maxChunks);
    let textChars = 0;
    for (const b of doc.blocks) textChars += b.text.length;
    // The chunk count first: the server starts writing the first slices while the rest are
    // tokenized here (issue 22 item 2).
    post({ type: "chunked", chunkCount: chunks.length });
    for (let i = 0; i < chunks.length; i += SLICE) {
      budget.check();
      await post({ type: "chunks", items: chunks.slice(i, i + SLICE).map((c) => ({ ...c, ...chunkPostings(c) })) });
    }
    // The file's heading runs span its chunks; computed here, not on the server's thread (71-86 ms
    // for bench:ingest's Markdown file, a stall at the start of its indexing; session 21).
    post({ type: "done", pageCount: doc.pageCount, chunkCount: chunks.length, textChars, headingRuns: headingTermRuns(chunks) });
  } catch (e) {
    const f = e instanceof IngestionFailure ? e : new IngestionFailure("INTERNAL_ERROR", `Parsing failed unexpectedly (${e instanceof Error ? e.message.slice(0, 200) : String(e)}).`);
    post({ type: "failed", code: f.code, message: f.message });
  }
}
