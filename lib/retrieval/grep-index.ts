import "server-only";
import type { RawDb } from "@/lib/db/client";
import { FIRST_BATCH, nextSize, yieldToOthers } from "./index-writer";

// grep_chunks' trigram index, built after a file is searchable (migration
// 20261214000000_grep_index_after_ready, issue 22 item 2). Maintaining a trigram index inside the
// indexing batches was more than half of what writing a large file cost; this adds a file's
// chunks to it afterwards, in short statements (the one embedded connection is released between
// them), and marks the file grep_indexed once every chunk is in. Until then grep_chunks scans the
// file's chunks, so a match is never missed. Idempotent: a build cut short (kill -9, shutdown) is
// taken up again from the first chunk, and chunks already in are skipped.

/** A Prisma client or any raw SQL runner (the migration test passes its own connection). */
type Db = RawDb;

/**
 * The next `limit` chunks of a file after `after` (by ordinal) into the index; returns how many
 * chunks were looked at and the last ordinal. A chunk deleted meanwhile is simply not there.
 */
const ADD_BATCH_SQL = `WITH s AS (SELECT id, ordinal, knowledge_id FROM chunks WHERE file_id = $1 AND ordinal > $2 ORDER BY ordinal LIMIT $3),
     i AS (INSERT INTO chunk_grep (chunk_id, knowledge_id) SELECT id, knowledge_id FROM s ON CONFLICT DO NOTHING RETURNING 1)
  SELECT count(*)::int AS n, coalesce(max(ordinal), $2)::int AS last, (SELECT count(*) FROM i)::int AS added FROM s`;

/**
 * The file is grep_indexed only if it is still the searchable version whose chunks were added:
 * a reparse that replaced its chunks meanwhile leaves some of them out (and its own success
 * starts a new build).
 */
const MARK_INDEXED_SQL = `UPDATE knowledge_files f SET grep_indexed = true
  WHERE f.id = $1 AND f.status = 'success' AND NOT f.grep_indexed
    AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.file_id = f.id AND NOT EXISTS (SELECT 1 FROM chunk_grep g WHERE g.chunk_id = c.id))`;

export interface GrepIndexOptions {
  /** Time one statement should take; the batch size adapts to it (INGEST_BATCH_MS). */
  batchMs: number;
  signal?: AbortSignal;
  /** Runs before every batch (tests stop or kill the process here). */
  beforeBatch?: (added: number) => void | Promise<void>;
}

/** Adds one file's chunks to grep_chunks' trigram index. Returns the chunks added and whether the
 *  file is now marked grep_indexed. */
export async function buildGrepIndex(db: Db, fileId: string, opts: GrepIndexOptions): Promise<{ added: number; indexed: boolean }> {
  let after = -1;
  let size = FIRST_BATCH;
  let added = 0;
  for (;;) {
    opts.signal?.throwIfAborted();
    await opts.beforeBatch?.(added);
    const t0 = performance.now();
    const [r] = await db.$queryRawUnsafe<Array<{ n: number; last: number; added: number }>>(ADD_BATCH_SQL, fileId, after, size);
    if (!r || r.n === 0) break;
    added += r.added;
    after = r.last;
    size = nextSize(size, performance.now() - t0, opts.batchMs);
    await yieldToOthers();
  }
  const indexed = (await db.$executeRawUnsafe(MARK_INDEXED_SQL, fileId)) > 0;
  return { added, indexed };
}

/** Searchable files whose chunks are not all in the trigram index yet: up to `limit`, by id, after
 *  `after` (pages through any number of files). */
export async function filesAwaitingGrepIndex(db: Db, after = "", limit = 500): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<Array<{ id: string }>>(
    `SELECT id FROM knowledge_files WHERE status = 'success' AND NOT grep_indexed AND id > $1 ORDER BY id LIMIT $2`,
    after,
    limit,
  );
  return rows.map((r) => r.id);
}
