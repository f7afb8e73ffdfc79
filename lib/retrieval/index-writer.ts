import "server-only";
// Writes a file's chunks into the lexical (chunk_terms) and vector indexes. The ingestion job
// runner and the benchmark both call replaceFileChunks; nothing else writes chunks.
import { randomUUID } from "node:crypto";
import { runAtomic, type AtomicStatement } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { chunkPostings, type ChunkPostings } from "./chunk-postings";
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
const TERM_BATCH = 20000;
const TX_TIMEOUT_MS = 10 * 60_000;

/** Serialise a vector for pgvector's text input; rejects NaN/Infinity (pgvector would too, less clearly). */
export function vectorLiteral(v: readonly number[]): string {
  for (const x of v) if (!Number.isFinite(x)) throw new Error("Embedding contains a non-finite number");
  return `[${v.join(",")}]`;
}

export { chunkPostings, type ChunkPostings, type IndexableChunk } from "./chunk-postings";

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
      id: randomUUID(),
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
 * One file's postings, found through the primary key (chunk_id, term) by the file's chunk ids:
 * no index of chunk_terms starts with file_id, and filtering on it read the whole table for
 * every file indexed, reparsed or deleted (migration 20261203010000_postings_indexes).
 */
export const DELETE_FILE_POSTINGS_SQL = `DELETE FROM chunk_terms WHERE chunk_id IN (SELECT id FROM chunks WHERE file_id = $1)`;

async function deleteIn(tx: Tx, fileId: string): Promise<void> {
  // Postings first, by one statement whose plan the tests check, then chunks. The chunks'
  // delete trigger (migration 20261203020000_postings_cascade) then finds none of theirs left:
  // one primary-key probe per chunk, kept so that this path does not rely on the trigger alone.
  await tx.$executeRawUnsafe(DELETE_FILE_POSTINGS_SQL, fileId);
  await tx.$executeRawUnsafe(`DELETE FROM chunks WHERE file_id = $1`, fileId);
}

/** The INSERT statements of prepared chunks: chunks first, then their postings. */
function insertStatements(knowledgeId: string, fileId: string, prepared: PreparedChunk[], model: string | null): AtomicStatement[] {
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
  let ids: string[] = [];
  let terms: string[] = [];
  let tfs: number[] = [];
  let lens: number[] = [];
  const flush = () => {
    if (!ids.length) return;
    out.push({
      sql: `INSERT INTO chunk_terms (chunk_id, knowledge_id, file_id, term, tf, doc_len)
       SELECT u.chunk_id, $1, $2, u.term, u.tf, u.doc_len
       FROM unnest($3::text[], $4::text[], $5::int[], $6::int[]) AS u(chunk_id, term, tf, doc_len)`,
      params: [knowledgeId, fileId, ids, terms, tfs, lens],
    });
    ids = [];
    terms = [];
    tfs = [];
    lens = [];
  };
  for (const p of prepared) {
    const { terms: ts, tfs: fs, tokenCount } = p.postings;
    for (let k = 0; k < ts.length; k++) {
      ids.push(p.id);
      terms.push(ts[k]!);
      tfs.push(fs[k]!);
      lens.push(tokenCount);
    }
    if (ids.length >= TERM_BATCH) flush();
  }
  flush();
  return out;
}

async function insertPrepared(tx: Tx, knowledgeId: string, fileId: string, prepared: PreparedChunk[], model: string | null) {
  for (const st of insertStatements(knowledgeId, fileId, prepared, model)) await tx.$executeRawUnsafe(st.sql, ...(st.params ?? []));
}

/**
 * Replaces every chunk of one file, in ONE transaction: old chunks and their terms are deleted,
 * the new chunks are inserted with their tokens, their (term, tf) postings and, when given,
 * their vectors. Running it twice leaves exactly one copy. Returns the number of chunks written.
 * Chunks with empty content are kept out of the lexical index only if they have no tokens.
 */
// Planner statistics for chunk_terms. Lexical search reads a very common term's postings in
// index order with a LIMIT (lexical.ts); without statistics the planner takes every posting and
// sorts them instead, which is what made 200k-chunk queries slow. A PostgreSQL server's
// autovacuum analyzes on its own; embedded PGlite never does, so the writer asks for it once
// enough postings were written since the last time (about 10 % of the table, at least 20k).
// It is a VACUUM (ANALYZE): vacuum also sets the visibility map, without which every
// "index-only" scan of the postings index still visits the table (SciFact: p95 ~10 % faster).
const g = globalThis as unknown as { __kaPostingsSinceAnalyze?: number };
const ANALYZE_MIN_POSTINGS = 20_000;

async function maybeAnalyze(db: Pick<PrismaClient, "$executeRawUnsafe" | "$queryRawUnsafe">, written: number): Promise<void> {
  g.__kaPostingsSinceAnalyze = (g.__kaPostingsSinceAnalyze ?? 0) + written;
  if (g.__kaPostingsSinceAnalyze < ANALYZE_MIN_POSTINGS) return;
  try {
    const rows = await db.$queryRawUnsafe<{ n: number }[]>(
      `SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = 'chunk_terms'::regclass`,
    );
    if (g.__kaPostingsSinceAnalyze < 0.1 * Number(rows[0]?.n ?? 0)) return;
    g.__kaPostingsSinceAnalyze = 0;
    await db.$executeRawUnsafe(`VACUUM (ANALYZE) chunk_terms`);
  } catch {
    // Statistics are an optimisation; a failure here must not fail the write that succeeded.
  }
}

export async function replaceFileChunks(db: PrismaClient, args: ReplaceFileChunksArgs): Promise<number> {
  const prepared = prepareChunks(args);
  const model = args.embeddings?.model ?? null;
  await db.$transaction(
    async (tx) => {
      // Serialise writers of the same file (two job attempts racing) so the result is one copy.
      await tx.$queryRawUnsafe(`SELECT id FROM knowledge_files WHERE id = $1 FOR UPDATE`, args.fileId);
      await deleteIn(tx, args.fileId);
      await insertPrepared(tx, args.knowledgeId, args.fileId, prepared, model);
    },
    { timeout: TX_TIMEOUT_MS, maxWait: 60_000 },
  );
  await maybeAnalyze(db, prepared.reduce((n, p) => n + p.postings.terms.length, 0));
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
  phase: "delete" | "insert";
  /** 1-based batch number within its phase. */
  batch: number;
  /** Chunks deleted (delete phase) or written (insert phase) so far. */
  done: number;
  /** Chunks to write (insert phase); for the delete phase the chunks deleted so far. */
  total: number;
}

export interface BatchedWriteArgs extends Omit<ReplaceFileChunksArgs, "chunks"> {
  chunks: Array<ChunkInput & Partial<ChunkPostings>>;
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
const FIRST_BATCH = 64;
const BATCH_TX_TIMEOUT_MS = 60_000;

/** Next batch size: scaled toward the target time, at most doubled per step. */
function nextSize(size: number, elapsedMs: number, targetMs: number): number {
  const scaled = Math.round((size * targetMs) / Math.max(1, elapsedMs));
  return Math.max(MIN_BATCH, Math.min(MAX_BATCH, size * 2, scaled));
}

/** Lets statements queued behind the batch (health, lists, chat) run before the next one. */
const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

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
 * One delete batch: the first `size` chunks of the file by ordinal (the (file_id, ordinal) key
 * gives them in index order, and the file row is locked, so both statements pick the same
 * ones) and their postings. The affected-row count of the second statement is the batch's size.
 */
const DELETE_BATCH_POSTINGS_SQL = `DELETE FROM chunk_terms WHERE chunk_id IN (SELECT id FROM chunks WHERE file_id = $1 ORDER BY ordinal LIMIT $2)`;
const DELETE_BATCH_CHUNKS_SQL = `DELETE FROM chunks WHERE id IN (SELECT id FROM chunks WHERE file_id = $1 ORDER BY ordinal LIMIT $2)`;

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
  checkEmbeddings(args.chunks.length, args.embeddings);
  const owner = ownerStatements(args.owner, args.fileId);
  const run = async (statements: AtomicStatement[]) => {
    const r = await runAtomic(db, [...owner, ...statements], { timeoutMs: BATCH_TX_TIMEOUT_MS });
    if (r.failedAt !== null) throw new IndexOwnershipLost();
    return r.results.slice(owner.length);
  };

  let size = FIRST_BATCH;
  let deleted = 0;
  for (let batch = 1; ; batch++) {
    args.beforeBatch?.();
    const t0 = performance.now();
    const limit = size * 4;
    const [, chunksDeleted] = await run([
      { sql: DELETE_BATCH_POSTINGS_SQL, params: [args.fileId, limit] },
      { sql: DELETE_BATCH_CHUNKS_SQL, params: [args.fileId, limit] },
    ]);
    const n = chunksDeleted!.affectedRows;
    if (!n) break;
    deleted += n;
    size = nextSize(size, (performance.now() - t0) / 4, args.batchMs);
    await args.afterBatch?.({ phase: "delete", batch, done: deleted, total: deleted });
    await yieldToOthers();
  }

  const total = args.chunks.length;
  let written = 0;
  let postings = 0;
  size = FIRST_BATCH;
  for (let batch = 1; written < total; batch++) {
    args.beforeBatch?.();
    const t0 = performance.now();
    const slice = args.chunks.slice(written, written + size);
    const vectors = args.embeddings ? { model: args.embeddings.model, vectors: args.embeddings.vectors.slice(written, written + size) } : null;
    const prepared = prepare(slice, vectors);
    await run(insertStatements(args.knowledgeId, args.fileId, prepared, model));
    written += slice.length;
    postings += prepared.reduce((k, p) => k + p.postings.terms.length, 0);
    size = nextSize(size, performance.now() - t0, args.batchMs);
    await args.afterBatch?.({ phase: "insert", batch, done: written, total });
    await yieldToOthers();
  }
  await maybeAnalyze(db, postings);
  return written;
}

/** Deletes a file's chunks and postings in bounded batches (a failed job's partial index). */
export async function deleteFileChunksInBatches(db: PrismaClient, fileId: string, batchSize = 500): Promise<number> {
  let deleted = 0;
  for (;;) {
    const n = await db.$transaction(
      async (t) => {
        const ids = await t.$queryRawUnsafe<{ id: string }[]>(`SELECT id FROM chunks WHERE file_id = $1 LIMIT $2`, fileId, batchSize);
        if (!ids.length) return 0;
        const list = ids.map((r) => r.id);
        await t.$executeRawUnsafe(`DELETE FROM chunk_terms WHERE chunk_id = ANY($1::text[])`, list);
        await t.$executeRawUnsafe(`DELETE FROM chunks WHERE id = ANY($1::text[])`, list);
        return ids.length;
      },
      { timeout: BATCH_TX_TIMEOUT_MS, maxWait: BATCH_TX_TIMEOUT_MS },
    );
    if (!n) return deleted;
    deleted += n;
    await yieldToOthers();
  }
}
