// Bounded write-ahead log for embedded PGlite (issue 22: 817 MB of WAL for ~7 MB of originals).
// PGlite runs PostgreSQL as a single backend without a checkpointer, and a standalone backend
// never requests a checkpoint on its own (only under a postmaster does WAL volume trigger one):
// the WAL grew with every write until a clean shutdown. So the checkpointer here asks for one
// (`CHECKPOINT`) whenever ~32 MB of WAL were written since the last, checked once a second; and
// a small max_wal_size / min_wal_size keeps what a checkpoint recycles for reuse small (with
// the 1 GB default it keeps up to a gigabyte of future segments). Without a postmaster,
// max_wal_size triggers no checkpoint here; it only caps the segments kept for reuse, so it is
// PostgreSQL's minimum, two 16 MB segments: at rest the WAL is 32 MB instead of 64 MB (issue 22
// item 3; bench:ingest showed no slower indexing, docs/bench-ingest-under-load.md, session 17).
// Those settings are written
// with ALTER SYSTEM (postgresql.auto.conf) and apply from the next start, so a data directory
// that does not have them yet is reopened once.
// Plain JavaScript: the PGlite worker thread (pglite-worker.mjs) loads it without a TS loader.

export const WAL_SETTINGS = { max_wal_size: "32MB", min_wal_size: "32MB" };

/** Opens PGlite through `create` with the WAL settings in force; reopens once to apply them. */
export async function createWithBoundedWal(dir, create) {
  let pg = await create();
  if (String(dir).startsWith("memory://")) return pg;
  let changed = false;
  for (const [name, value] of Object.entries(WAL_SETTINGS)) {
    const cur = await pg.query(`SHOW ${name}`);
    if (cur.rows[0]?.[name] === value) continue;
    await pg.exec(`ALTER SYSTEM SET ${name} = '${value}'`);
    changed = true;
  }
  if (!changed) return pg;
  await pg.close();
  pg = await create();
  return pg;
}

export const CHECKPOINT_EVERY_BYTES = 32 * 1024 * 1024;

/**
 * Checkpoints `pg` once `everyBytes` of WAL were written since the last checkpoint. A checkpoint
 * queues behind the statement or transaction running, like any query. Returns stop(), with a
 * nudge() to call after each write: a timer alone lets a fast writer outrun it (a second of bulk
 * inserts is well over 32 MB of WAL), so the check also follows the writes, at most one per
 * `nudgeMs`.
 */
export function startCheckpointer(pg, { intervalMs = 1000, everyBytes = CHECKPOINT_EVERY_BYTES, nudgeMs = 50 } = {}) {
  let checkedAt = 0;
  let last = null;
  let busy = false;
  let stopped = false;
  const position = async () => Number((await pg.query(`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::float8 AS b`)).rows[0].b);
  const tick = async () => {
    if (busy || stopped) return;
    busy = true;
    checkedAt = Date.now();
    try {
      const now = await position();
      if (last === null) last = now;
      else if (now - last >= everyBytes && !stopped) {
        await pg.exec("CHECKPOINT");
        last = await position();
      }
    } catch {
      // Closed meanwhile, or a transient error: the next tick tries again.
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref?.();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  stop.nudge = () => {
    if (Date.now() - checkedAt >= nudgeMs) void tick();
  };
  return stop;
}
