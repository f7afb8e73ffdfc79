import "server-only";
// Writes a file's chunks into the lexical (posting_pages) and vector indexes. The ingestion job
// runner and the benchmark both call replaceFileChunks; nothing else writes chunks.
import { randomBytes } from "node:crypto";
import { runAtomic, type AtomicStatement } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { chunkPostings, headingTermRuns, type ChunkPostings, type HeadingTermRun } from "./chunk-postings";
import type { ChunkInput } from "./types";

export interface ReplaceFileChunksArgs {
  knowledgeId: string;
  fileId: string;
  chunks: ChunkInput[];
  /** Vectors in the order of `chunks`; all made with `model`. Omit or null for lexical only. */
  embeddings?: { model: string; vectors: number[][] } | null;
}

type Tx = Pick<PrismaClient, "$executeRawUnsafe" | "$queryRawUnsafe">;

// Rows per INSERT … SELECT FROM unnest(…): one statement with one array parameter per column,
// so the number of bind parameters does not grow with the batch.
const CHUNK_BATCH = 1000;

/**
 * A chunk's id: 16 random bytes in base64url, 22 characters (a UUID's text is 36 for 122 random
 * bits). The id is repeated in every knowledge-graph mention row and in the indexes over chunks
 * and mentions, so its length is storage (issue 22 item 3: ~3.5 MB less on bench:ingest's corpus).
 */
export function newChunkId(): string {
  return randomBytes(16).toString("base64url");
}
const TX_TIMEOUT_MS = 10 * 60_000;

/** Every chunk of a file into grep_chunks' trigram index (migration 20261214000000), and the
 *  file marked grep_indexed: for a writer that wrote the whole file in one transaction. */
const GREP_INDEX_WHOLE_FILE_SQL = [
  `INSERT INTO chunk_grep (chunk_id, knowledge_id) SELECT id, knowledge_id FROM chunks WHERE file_id = $1 ON CONFLICT DO NOTHING`,
  `UPDATE knowledge_files SET grep_indexed = true WHERE id = $1`,
];

/** Serialise a vector for pgvector's text input; rejects NaN/Infinity (pgvector would too, less clearly). */
export function vectorLiteral(v: readonly number[]): string {
  for (const x of v) if (!Number.isFinite(x)) throw new Error("Embedding contains a non-finite number");
  return `[${v.join(",")}]`;
}

export { chunkPostings, headingTermRuns, type ChunkPostings, type HeadingTermRun, type IndexableChunk } from "./chunk-postings";

export interface PreparedChunk {
  id: string;
  input: ChunkInput;
  postings: ChunkPostings;
  vector: string | null;
}

function checkEmbeddings(count: number, embeddings: ReplaceFileChunksArgs["embeddings"]): void {
  if (!embeddings) return;
  if (!embeddings.model) throw new Error("embeddings.model is required when vectors are given");
  if (embeddings.vectors.length !== count) {
    throw new Error(`Got ${embeddings.vectors.length} vectors for ${count} chunks`);
  }
  const dim = embeddings.vectors[0]?.length ?? 0;
  if (embeddings.vectors.some((v) => v.length !== dim || dim === 0)) {
    throw new Error("All vectors must have the same, non-zero dimension");
  }
}

function prepare(chunks: Array<ChunkInput & Partial<ChunkPostings>>, embeddings: ReplaceFileChunksArgs["embeddings"]): PreparedChunk[] {
  checkEmbeddings(chunks.length, embeddings);
  const seen = new Set<number>();
  return chunks.map((c, i) => {
    if (!Number.isInteger(c.ordinal) || seen.has(c.ordinal)) {
      throw new Error(`Chunk ordinals must be distinct integers (got ${c.ordinal})`);
    }
    seen.add(c.ordinal);
    const postings = c.terms && c.tfs && c.tokens !== undefined && c.tokenCount !== undefined ? (c as ChunkPostings) : chunkPostings(c);
    return {
      id: newChunkId(),
      input: c,
      postings,
      vector: embeddings ? vectorLiteral(embeddings.vectors[i]!) : null,
    };
  });
}

/** Tokenizes outside the transaction (CPU work must not hold row locks). */
export function prepareChunks(args: ReplaceFileChunksArgs): PreparedChunk[] {
  return prepare(args.chunks, args.embeddings);
}

/**
 * One file's postings: its pages, through the file index of posting_pages (migration
 * 20261206000000_posting_pages). Deleted before the file's chunks, so the chunks' delete trigger
 * (which would otherwise remove them) finds none left.
 */
export const DELETE_FILE_POSTINGS_SQL = `DELETE FROM posting_pages WHERE file_id = $1`;

/**
 * A file's heading runs (migration 20261211000000_heading_term_runs; few rows, the primary key
 * starts with file_id), and its place in the list of files indexed before that migration whose
 * runs the background backfill still has to compute: the writer writes them itself from here on.
 */
const DELETE_FILE_RUNS_SQL = `DELETE FROM heading_term_runs WHERE file_id = $1`;
const DELETE_FILE_RUNS_PENDING_SQL = `DELETE FROM heading_term_runs_pending WHERE file_id = $1`;
const deleteRunsStatements = (fileId: string): AtomicStatement[] => [
  { sql: DELETE_FILE_RUNS_PENDING_SQL, params: [fileId] },
  { sql: DELETE_FILE_RUNS_SQL, params: [fileId] },
];

async function deleteIn(tx: Tx, fileId: string): Promise<void> {
  await tx.$executeRawUnsafe(DELETE_FILE_POSTINGS_SQL, fileId);
  await tx.$executeRawUnsafe(`DELETE FROM chunks WHERE file_id = $1`, fileId);
  for (const st of deleteRunsStatements(fileId)) await tx.$executeRawUnsafe(st.sql, ...(st.params ?? []));
}

/** The INSERT of a file's heading runs (none when no heading term spans two chunks). */
export function runStatements(knowledgeId: string, fileId: string, runs: readonly HeadingTermRun[]): AtomicStatement[] {
  if (!runs.length) return [];
  return [
    {
      sql: `INSERT INTO heading_term_runs (knowledge_id, file_id, term, first_ordinal, last_ordinal)
       SELECT $1, $2, u.term, u.first_ordinal, u.last_ordinal FROM unnest($3::text[], $4::int[], $5::int[]) AS u(term, first_ordinal, last_ordinal)`,
      params: [knowledgeId, fileId, runs.map((r) => r.term), runs.map((r) => r.first), runs.map((r) => r.last)],
    },
  ];
}

/**
 * Every posting as a row (chunk_id, knowledge_id, file_id, term, tf, doc_len, ordinal), the shape
 * of the former chunk_terms table: for checks, tests and benchmarks, not for queries that must be
 * fast (it unnests pages; filter on knowledge_id, term or file_id, which the pages' indexes serve).
 * A posting names its chunk by (file_id, ordinal) (migration 20261212000000_posting_pages_ordinals);
 * chunk_id is that chunk's id, NULL for a posting whose chunk is gone (which must never happen).
 */
export const POSTING_ROWS_SQL = `(SELECT c.id AS chunk_id, p.knowledge_id, p.file_id, p.term, e.tf, e.doc_len, e.ordinal FROM posting_pages p CROSS JOIN LATERAL unnest(posting_tfs(p.postings), posting_doc_lens(p.postings), posting_ordinals(p.postings)) AS e(tf, doc_len, ordinal) LEFT JOIN chunks c ON c.file_id = p.file_id AND c.ordinal = e.ordinal)`;

/** The page rows of one write batch: per term, its postings in impact order cut into pages. */
export interface PageRows {
  terms: string[];
  firstTf: number[];
  firstDl: number[];
  inc: number[];
  /** Array literals, one per page: its tfs, then its chunk lengths, then its ordinals. */
  postings: string[];
}

/**
 * One write batch's postings as pages (migration 20261206000000_posting_pages): each term's
 * postings sorted by impact (tf high, then short chunks; ties in any order: the readers never
 * rely on an order within a level), cut into pages of 1, 2, 4, … postings; a page's level is
 * its first posting's (tf, doc_len), its inc 1 for the first page and the previous page's size
 * after that. A page's postings are one array (migration 20261213020000_posting_pages_packed):
 * its n tfs, then its n chunk lengths, then its n ordinals.
 */
export function pageRows(prepared: readonly PreparedChunk[]): PageRows {
  const byTerm = new Map<string, number[]>();
  prepared.forEach((p, i) => {
    const { terms, tfs } = p.postings;
    for (let k = 0; k < terms.length; k++) {
      let list = byTerm.get(terms[k]!);
      if (!list) byTerm.set(terms[k]!, (list = []));
      // chunk index and tf packed in one number (tf < 2^21 and fewer than 2^31 chunks per batch).
      list.push(i * 2 ** 21 + Math.min(tfs[k]!, 2 ** 21 - 1));
    }
  });
  const out: PageRows = { terms: [], firstTf: [], firstDl: [], inc: [], postings: [] };
  const chunkOf = (x: number) => Math.floor(x / 2 ** 21);
  const tfOf = (x: number) => x % 2 ** 21;
  const lenOf = (x: number) => prepared[chunkOf(x)]!.postings.tokenCount;
  for (const [term, list] of byTerm) {
    list.sort((a, b) => tfOf(b) - tfOf(a) || lenOf(a) - lenOf(b));
    let prev = 1;
    for (let start = 0, size = 1; start < list.length; start += size, size *= 2) {
      const page = list.slice(start, start + size);
      out.terms.push(term);
      out.firstTf.push(tfOf(page[0]!));
      out.firstDl.push(lenOf(page[0]!));
      out.inc.push(prev);
      out.postings.push(`{${page.map(tfOf).join(",")},${page.map(lenOf).join(",")},${page.map((x) => prepared[chunkOf(x)]!.input.ordinal).join(",")}}`);
      prev = page.length;
    }
  }
  return out;
}

/** The INSERT of one write batch's pages: one row per page, arrays parsed from their literals. */
export const INSERT_PAGES_SQL = `INSERT INTO posting_pages (knowledge_id, file_id, term, first_tf, first_dl, inc, postings)
       SELECT $1, $2, u.term, u.first_tf, u.first_dl, u.inc, u.postings::int[]
       FROM unnest($3::text[], $4::int[], $5::int[], $6::int[], $7::text[])
            AS u(term, first_tf, first_dl, inc, postings)`;

/** The INSERT statements of prepared chunks: chunks first, then their postings' pages (exported
 *  for scripts/postings-layout-bench.ts, which times exactly these statements). */
export function insertStatements(knowledgeId: string, fileId: string, prepared: PreparedChunk[], model: string | null): { statements: AtomicStatement[]; pages: number } {
  const out: AtomicStatement[] = [];
  for (let start = 0; start < prepared.length; start += CHUNK_BATCH) {
    const batch = prepared.slice(start, start + CHUNK_BATCH);
    out.push({
      sql: `INSERT INTO chunks (id, knowledge_id, file_id, ordinal, content, page_start, page_end, heading_path,
                           tokens, token_count, embedding, embedding_model, page_marks)
       SELECT u.id, $1, $2, u.ordinal, u.content, u.page_start, u.page_end, u.heading_path, u.tokens,
              u.token_count, u.embedding::vector, CASE WHEN u.embedding IS NULL THEN NULL ELSE $12 END, u.page_marks::jsonb
       FROM unnest($3::text[], $4::int[], $5::text[], $6::int[], $7::int[], $8::text[], $9::text[], $10::int[], $11::text[], $13::text[])
            AS u(id, ordinal, content, page_start, page_end, heading_path, tokens, token_count, embedding, page_marks)`,
      params: [
        knowledgeId,
        fileId,
        batch.map((p) => p.id),
        batch.map((p) => p.input.ordinal),
        batch.map((p) => p.input.content),
        batch.map((p) => p.input.pageStart),
        batch.map((p) => p.input.pageEnd),
        batch.map((p) => p.input.headingPath ?? ""),
        batch.map((p) => p.postings.tokens),
        batch.map((p) => p.postings.tokenCount),
        batch.map((p) => p.vector),
        model,
        batch.map((p) => (p.input.pageMarks ? JSON.stringify(p.input.pageMarks) : null)),
      ],
    });
  }
  // The batch's postings as pages, in the same transaction as their chunks.
  const pages = pageRows(prepared);
  if (pages.terms.length) {
    out.push({
      sql: INSERT_PAGES_SQL,
      params: [knowledgeId, fileId, pages.terms, pages.firstTf, pages.firstDl, pages.inc, pages.postings],
    });
  }
  return { statements: out, pages: pages.terms.length };
}

async function insertPrepared(tx: Tx, knowledgeId: string, fileId: string, prepared: PreparedChunk[], model: string | null): Promise<number> {
  const { statements, pages } = insertStatements(knowledgeId, fileId, prepared, model);
  for (const st of statements) await tx.$executeRawUnsafe(st.sql, ...(st.params ?? []));
  return pages;
}

/**
 * Replaces every chunk of one file, in ONE transaction: old chunks and their terms are deleted,
 * the new chunks are inserted with their tokens, their (term, tf) postings and, when given,
 * their vectors. Running it twice leaves exactly one copy. Returns the number of chunks written.
 * Chunks with empty content are kept out of the lexical index only if they have no tokens.
 */
// Planner statistics for posting_pages. Lexical search reads a very common term's pages in
// index order with a limit (lexical.ts); without statistics the planner may take every page and
// sort them instead, which is what made 200k-chunk queries slow with the former postings table.
// A PostgreSQL server's autovacuum analyzes on its own; embedded PGlite never does, so the writer
// asks for it once enough pages were written since the last time (see analyzeDue). A VACUUM
// first (it sets the visibility map and reclaims a re-indexed file's pages), then the ANALYZE, as
// two statements with a turn of the event loop between them: on the embedded database each holds
// the one connection, and a request waiting behind the pair waited for both (session 21).
const g = globalThis as unknown as { __kaPagesSinceAnalyze?: number };

/**
 * Rows ANALYZE samples at the default statistics target (300 × 100). Analyzing again before
 * that many rows were written re-reads mostly the rows of the last sample; counting from here,
 * the analyze work stays proportional to the rows written however small the files are. (The
 * floor was 2,000 pages, assumed ~10× fewer than postings; for small files a page holds about
 * one posting, and 848 files of ~12 chunks ran VACUUM (ANALYZE) 30 times — most of
 * bench:retrieval's indexing regression, issue 22, session 14.)
 */
const ANALYZE_SAMPLE_ROWS = 30_000;

/** Whether the writer analyzes posting_pages now: pages written since the last time are at least
 *  one ANALYZE sample and at least 10 % of the table (autovacuum's default scale factor). */
export function analyzeDue(pagesSince: number, tableRows: number): boolean {
  return pagesSince >= ANALYZE_SAMPLE_ROWS && pagesSince >= 0.1 * tableRows;
}

export async function maybeAnalyze(db: Pick<PrismaClient, "$executeRawUnsafe" | "$queryRawUnsafe">, written: number): Promise<void> {
  g.__kaPagesSinceAnalyze = (g.__kaPagesSinceAnalyze ?? 0) + written;
  if (!analyzeDue(g.__kaPagesSinceAnalyze, 0)) return;
  try {
    const rows = await db.$queryRawUnsafe<{ n: number }[]>(
      `SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = 'posting_pages'::regclass`,
    );
    if (!analyzeDue(g.__kaPagesSinceAnalyze, Number(rows[0]?.n ?? 0))) return;
    g.__kaPagesSinceAnalyze = 0;
    await db.$executeRawUnsafe(`VACUUM posting_pages`);
    await yieldToOthers();
    await db.$executeRawUnsafe(`ANALYZE posting_pages`);
  } catch {
    // Statistics are an optimisation; a failure here must not fail the write that succeeded.
  }
}

export async function replaceFileChunks(db: PrismaClient, args: ReplaceFileChunksArgs): Promise<number> {
  const prepared = prepareChunks(args);
  const runs = runStatements(args.knowledgeId, args.fileId, headingTermRuns(args.chunks));
  const model = args.embeddings?.model ?? null;
  let pagesWritten = 0;
  await db.$transaction(
    async (tx) => {
      // Serialise writers of the same file (two job attempts racing) so the result is one copy.
      await tx.$queryRawUnsafe(`SELECT id FROM knowledge_files WHERE id = $1 FOR UPDATE`, args.fileId);
      await deleteIn(tx, args.fileId);
      pagesWritten = await insertPrepared(tx, args.knowledgeId, args.fileId, prepared, model);
      for (const st of runs) await tx.$executeRawUnsafe(st.sql, ...(st.params ?? []));
      // Written whole in one transaction, the file's text goes into grep_chunks' trigram index
      // with it (the runner's batched writes leave that to grep-index.ts, after the file is ready).
      for (const sql of GREP_INDEX_WHOLE_FILE_SQL) await tx.$executeRawUnsafe(sql, args.fileId);
    },
    { timeout: TX_TIMEOUT_MS, maxWait: 60_000 },
  );
  await maybeAnalyze(db, pagesWritten);
  return prepared.length;
}

/** Deletes a file's chunks and postings (the file row itself is the caller's). Returns chunks removed. */
export async function deleteFileChunks(db: PrismaClient, fileId: string): Promise<number> {
  return db.$transaction(
    async (tx) => {
      const rows = await tx.$queryRawUnsafe<{ n: bigint | number }[]>(
        `SELECT count(*) AS n FROM chunks WHERE file_id = $1`,
        fileId,
      );
      await deleteIn(tx, fileId);
      return Number(rows[0]?.n ?? 0);
    },
    { timeout: TX_TIMEOUT_MS, maxWait: 60_000 },
  );
}

// ---------------------------------------------------------------------- bounded batches

/** The job that owns a file's indexing; every batch checks it still does (issue 22). */
export interface IndexOwner {
  jobId: string;
  lockedBy: string;
}

/** The owning job was requeued, deleted or taken over: nothing more may be written. */
export class IndexOwnershipLost extends Error {
  constructor() {
    super("the indexing job no longer owns this file");
    this.name = "IndexOwnershipLost";
  }
}

export interface BatchInfo {
  /** delete-postings: a batch of the file's old pages; delete: of its old chunks (their pages are
   *  gone by then); insert: new chunks with their pages. */
  phase: "delete-postings" | "delete" | "insert";
  /** 1-based batch number within its phase. */
  batch: number;
  /** Pages deleted (delete-postings), chunks deleted (delete) or chunks written (insert) so far. */
  done: number;
  /** Chunks to write (insert phase); for the delete phases the same as `done`. */
  total: number;
  /** Insert phase: chunks received from the feed when the batch committed (≤ total). */
  received?: number;
}

type WritableChunk = ChunkInput & Partial<ChunkPostings>;

/**
 * A file's chunks as they arrive from its parse thread, so that writing them overlaps the
 * thread's tokenizing of the rest (issue 22 item 2): `total` is known once the document is
 * chunked, `chunks` grows slice by slice, and the heading runs come with the last slice.
 */
export interface ChunkFeed {
  readonly total: number;
  /** The chunks received so far, in order (grows; never shrinks). */
  readonly chunks: readonly WritableChunk[];
  /** Resolves once at least `n` chunks have been received; rejects if the parse failed. */
  upTo(n: number): Promise<void>;
  /** headingTermRuns over all of the file's chunks; resolves after the last slice. */
  headingRuns(): Promise<readonly HeadingTermRun[]>;
}

/** A feed over chunks that are all there already. */
export function completeFeed(chunks: readonly WritableChunk[], headingRuns?: readonly HeadingTermRun[]): ChunkFeed {
  return {
    total: chunks.length,
    chunks,
    upTo: () => Promise.resolve(),
    headingRuns: () => Promise.resolve(headingRuns ?? headingTermRuns(chunks)),
  };
}

export interface BatchedWriteArgs extends Omit<ReplaceFileChunksArgs, "chunks"> {
  /** All chunks, or a feed that delivers them while they are written. */
  chunks: WritableChunk[] | ChunkFeed;
  /** headingTermRuns(chunks), when the caller has it (the parse thread computes it); else
   *  computed here. Ignored for a feed (it brings its own). */
  headingRuns?: readonly HeadingTermRun[];
  owner: IndexOwner;
  /** Time one batch's transaction should take; the batch size adapts to it. */
  batchMs: number;
  /** Runs before every batch; throws to stop (time budget, cancellation). */
  beforeBatch?: () => void;
  /** Runs after every committed batch (progress; tests kill the process here). */
  afterBatch?: (info: BatchInfo) => void | Promise<void>;
}

const MIN_BATCH = 8;
const MAX_BATCH = 2000;
/** Size of a phase's first batch, before nextSize adapts it (also the grep index's, grep-index.ts). */
export const FIRST_BATCH = 64;
const BATCH_TX_TIMEOUT_MS = 60_000;

/** Next batch size: scaled toward the target time, at most doubled per step (also the grep
 *  index's batches, grep-index.ts). */
export function nextSize(size: number, elapsedMs: number, targetMs: number): number {
  const scaled = Math.round((size * targetMs) / Math.max(1, elapsedMs));
  return Math.max(MIN_BATCH, Math.min(MAX_BATCH, size * 2, scaled));
}

/** Lets statements queued behind the batch (health, lists, chat) run before the next one. */
export const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The ownership check that opens every batch; `requireRows`, so a batch whose job is no longer
 * this one's rolls back whole. The job row's lock also orders the batch against a takeover: a
 * claim by another worker waits for it, and the batches after that find the job no longer
 * theirs. The same statement is the job's heartbeat. The file row's lock serialises writers of
 * one file.
 */
function ownerStatements(owner: IndexOwner, fileId: string): AtomicStatement[] {
  return [
    {
      sql: `UPDATE ingestion_jobs SET locked_at = now() WHERE id = $1 AND locked_by = $2 AND status = 'running' RETURNING id`,
      params: [owner.jobId, owner.lockedBy],
      requireRows: true,
    },
    { sql: `SELECT id FROM knowledge_files WHERE id = $1 FOR UPDATE`, params: [fileId], requireRows: true },
  ];
}

/**
 * One delete batch. First a file's pages go, `limit` pages at a time (by ctid: no order is
 * needed, the file row is locked), then, once none is left, its chunks, the first `limit` by
 * ordinal (the (file_id, ordinal) key gives them in index order). The chunks statement deletes
 * nothing while pages remain, so a batch never removes a chunk whose postings are still there;
 * the chunks' delete trigger then has nothing to take out of pages (migration
 * 20261206000000_posting_pages).
 */
const DELETE_BATCH_PAGES_SQL = `DELETE FROM posting_pages WHERE ctid = ANY(ARRAY(SELECT ctid FROM posting_pages WHERE file_id = $1 LIMIT $2))`;
const DELETE_BATCH_CHUNKS_SQL = `DELETE FROM chunks WHERE id IN (SELECT id FROM chunks WHERE file_id = $1 AND NOT EXISTS (SELECT 1 FROM posting_pages WHERE file_id = $1) ORDER BY ordinal LIMIT $2)`;
/** Pages per chunk in a delete batch: a page holds a term's postings of several chunks. */
const PAGES_PER_CHUNK = 8;

/**
 * Replaces every chunk of one file in bounded batches, each its own short transaction, so the
 * database connection (the only one, on embedded PGlite) is released between them and other
 * requests never wait behind a whole file. First the file's existing chunks and postings are
 * deleted in batches, then the new ones are inserted with their postings and vectors, each chunk
 * in the same transaction as its postings. A process killed between two batches leaves some of
 * the new chunks; the job's next attempt starts by deleting every chunk of the file, so it ends
 * with exactly one copy of each. Returns the number of chunks written.
 *
 * Each batch is one statement list for runAtomic: on embedded PGlite one message to its worker
 * thread (one round trip and no Prisma request pipeline per statement), on a PostgreSQL server
 * one Prisma transaction.
 */
export async function writeFileChunksInBatches(db: PrismaClient, args: BatchedWriteArgs): Promise<number> {
  const model = args.embeddings?.model ?? null;
  const feed = Array.isArray(args.chunks) ? completeFeed(args.chunks, args.headingRuns) : args.chunks;
  checkEmbeddings(feed.total, args.embeddings);
  const owner = ownerStatements(args.owner, args.fileId);
  const run = async (statements: AtomicStatement[]) => {
    const r = await runAtomic(db, [...owner, ...statements], { timeoutMs: BATCH_TX_TIMEOUT_MS });
    if (r.failedAt !== null) throw new IndexOwnershipLost();
    return r.results.slice(owner.length);
  };

  let size = FIRST_BATCH;
  let deleted = 0;
  let pagesDeletedSoFar = 0;
  // Batches are numbered within their phase (delete-postings, then delete).
  const numbers = { "delete-postings": 0, delete: 0 };
  for (;;) {
    args.beforeBatch?.();
    const t0 = performance.now();
    const limit = size * 4;
    const [pagesDeleted, chunksDeleted] = await run([
      { sql: DELETE_BATCH_PAGES_SQL, params: [args.fileId, limit * PAGES_PER_CHUNK] },
      { sql: DELETE_BATCH_CHUNKS_SQL, params: [args.fileId, limit] },
      // A few rows, by primary key: in every delete batch (the first one already empties them).
      ...deleteRunsStatements(args.fileId),
    ]);
    const pages = pagesDeleted!.affectedRows;
    const n = chunksDeleted!.affectedRows;
    if (!n && !pages) break;
    deleted += n;
    pagesDeletedSoFar += pages;
    size = nextSize(size, (performance.now() - t0) / 4, args.batchMs);
    const phase = n ? "delete" : "delete-postings";
    const done = n ? deleted : pagesDeletedSoFar;
    await args.afterBatch?.({ phase, batch: ++numbers[phase], done, total: done });
    await yieldToOthers();
  }

  const total = feed.total;
  // The file's heading runs, computed over all of its chunks (a run may span batches), are
  // written with the last batch (a feed has them only once its last slice came): a run written
  // earlier would only match no posting yet, and an attempt cut short is deleted whole by the
  // next one (the delete batches above).
  let written = 0;
  let pagesWritten = 0;
  size = FIRST_BATCH;
  for (let batch = 1; written < total; batch++) {
    // A feed's next chunks may still be on their way: wait for a full batch (or the rest). The
    // time spent waiting is the parse thread's, not this batch's: it is not in the batch's time.
    await feed.upTo(Math.min(total, written + size));
    const last = written + size >= total;
    const runs = last ? runStatements(args.knowledgeId, args.fileId, await feed.headingRuns()) : [];
    args.beforeBatch?.();
    const t0 = performance.now();
    const slice = feed.chunks.slice(written, written + size);
    const vectors = args.embeddings ? { model: args.embeddings.model, vectors: args.embeddings.vectors.slice(written, written + size) } : null;
    const prepared = prepare(slice, vectors);
    const { statements, pages } = insertStatements(args.knowledgeId, args.fileId, prepared, model);
    await run([...statements, ...runs]);
    written += slice.length;
    pagesWritten += pages;
    size = nextSize(size, performance.now() - t0, args.batchMs);
    await args.afterBatch?.({ phase: "insert", batch, done: written, total, received: feed.chunks.length });
    await yieldToOthers();
  }
  await maybeAnalyze(db, pagesWritten);
  return written;
}

/** Deletes a file's chunks and postings in bounded batches (a failed job's partial index). */
export async function deleteFileChunksInBatches(db: PrismaClient, fileId: string, batchSize = 500): Promise<number> {
  let deleted = 0;
  for (;;) {
    const n = await db.$transaction(
      async (t) => {
        // Pages first (as in writeFileChunksInBatches), then chunks once none is left.
        for (const st of deleteRunsStatements(fileId)) await t.$executeRawUnsafe(st.sql, ...(st.params ?? []));
        const pages = await t.$executeRawUnsafe(DELETE_BATCH_PAGES_SQL, fileId, batchSize * PAGES_PER_CHUNK);
        const chunks = await t.$executeRawUnsafe(DELETE_BATCH_CHUNKS_SQL, fileId, batchSize);
        return { pages, chunks };
      },
      { timeout: BATCH_TX_TIMEOUT_MS, maxWait: BATCH_TX_TIMEOUT_MS },
    );
    if (!n.chunks && !n.pages) return deleted;
    deleted += n.chunks;
    await yieldToOthers();
  }
}
