import "server-only";
import type { RawDb } from "@/lib/db/client";

/** A run with no heartbeat for this long belongs to a dead instance (PostgreSQL server mode). */
export const EVAL_STALE_MS = 3 * 60_000;

/**
 * Runs left `running` by a dead process are marked failed. Kept apart from the runner (which
 * loads the retrieval runtime) so boot can do it before serving without that import: on the
 * embedded database every running run is a dead process's, and one this process claims after
 * serving starts must never be taken for one.
 */
export async function failInterruptedRuns(raw: RawDb, opts: { embedded: boolean }): Promise<number> {
  return raw.$executeRawUnsafe(
    `UPDATE evaluation_runs SET status = 'failed', error_message = 'Interrupted by a server restart.', finished_at = now(), locked_by = NULL
     WHERE status = 'running' AND ($1::boolean OR locked_at < now() - make_interval(secs => $2::int))`,
    opts.embedded,
    Math.round(EVAL_STALE_MS / 1000),
  );
}
