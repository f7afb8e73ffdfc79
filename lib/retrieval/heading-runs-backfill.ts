import "server-only";
// Heading runs of the files indexed before migration 20261211000000_heading_term_runs. The
// migration cannot compute them (a heading's terms come from the tokenizer: jieba, Traditional →
// Simplified, stemming), so it lists those files in heading_term_runs_pending and the server
// computes their runs here, in the background after start, with the same function as the index
// writer. Until a file's runs are written it ranks as it did before the migration.
import { headingTermRuns } from "./chunk-postings";
import { runStatements } from "./index-writer";

/** What the backfill runs its statements on (a Prisma transaction client has these). */
interface Tx {
  $queryRawUnsafe<T = unknown>(sql: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(sql: string, ...values: unknown[]): Promise<number>;
}
/** A Prisma client, or anything that runs a callback in one transaction (the migration test's raw client). */
export interface TransactionRunner {
  $transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

/**
 * Computes the runs of every listed file, one short transaction per file (the embedded database
 * has one connection: other requests run between two files). The file row is locked first, as
 * the index writer does, so a file being written again is skipped (the writer takes it off the
 * list and writes its runs itself) and a writer that comes later waits for this file's commit.
 * Returns the number of files done.
 */
export async function backfillHeadingRuns(db: TransactionRunner, opts: { signal?: AbortSignal } = {}): Promise<number> {
  let done = 0;
  while (!opts.signal?.aborted) {
    const did = await db.$transaction(async (tx) => {
      const [file] = await tx.$queryRawUnsafe<{ id: string; knowledge_id: string }[]>(
        `SELECT f.id, f.knowledge_id FROM heading_term_runs_pending p JOIN knowledge_files f ON f.id = p.file_id
         ORDER BY p.file_id LIMIT 1 FOR UPDATE OF f SKIP LOCKED`,
      );
      if (!file) return false;
      const chunks = await tx.$queryRawUnsafe<{ ordinal: number; heading_path: string }[]>(
        `SELECT ordinal, heading_path FROM chunks WHERE file_id = $1 AND heading_path <> ''`,
        file.id,
      );
      const runs = headingTermRuns(chunks.map((c) => ({ ordinal: Number(c.ordinal), headingPath: c.heading_path })));
      await tx.$executeRawUnsafe(`DELETE FROM heading_term_runs WHERE file_id = $1`, file.id);
      for (const st of runStatements(file.knowledge_id, file.id, runs)) await tx.$executeRawUnsafe(st.sql, ...(st.params ?? []));
      await tx.$executeRawUnsafe(`DELETE FROM heading_term_runs_pending WHERE file_id = $1`, file.id);
      return true;
    });
    if (!did) break;
    done++;
  }
  return done;
}
