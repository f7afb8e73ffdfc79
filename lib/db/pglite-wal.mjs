// Bounded write-ahead log for embedded PGlite (issue 22: 817 MB of WAL for ~7 MB of originals).
// PGlite runs PostgreSQL as a single backend without a checkpointer, and a standalone backend
// never requests a checkpoint on its own (only under a postmaster does WAL volume trigger one):
// the WAL grew with every write until a clean shutdown. So the checkpointer here asks for one
// (`CHECKPOINT`) whenever ~32 MB of WAL were written since the last, checked once a second; and
// a small max_wal_size / min_wal_size keeps what a checkpoint recycles for reuse small (with
// the 1 GB default it keeps up to a gigabyte of future segments). Without a postmaster,
// max_wal_size triggers no checkpoint here; it only caps the segments kept for reuse, so it is
// PostgreSQL's minimum, two segments.
// What stays at rest is therefore two segments, and a segment's size is fixed when the data
// directory is created (initdb). PostgreSQL's 16 MB default suits a server that recycles
// segments under steady load; an embedded database that checkpoints on its own schedule gains
// nothing from it, so new data directories use 1 MB segments (initdb --wal-segsize=1): 2 MB of
// WAL at rest instead of 32 (issue 22 item 3, docs/bench-ingest-under-load.md, session 18).
// Directories created before keep their 16 MB segments and get 32 MB, their own minimum (a
// smaller min_wal_size than two segments stops PostgreSQL from starting).
// Those settings are written with ALTER SYSTEM (postgresql.auto.conf) and apply from the next
// start, so a data directory that does not have them yet is reopened once.
// Plain JavaScript: the PGlite worker thread (pglite-worker.mjs) loads it without a TS loader.

/** initdb arguments for a new data directory (PGlite passes them only when it runs initdb). */
export const INITDB_ARGS = ["--wal-segsize=1"];

/** max_wal_size and min_wal_size for a data directory with segments of `segmentMb` MB. */
export function walSettingsFor(segmentMb) {
  const both = `${2 * segmentMb}MB`;
  return { max_wal_size: both, min_wal_size: both };
}

/**
 * Opens PGlite through `create(options)` (options to spread into PGlite.create: the initdb
 * arguments) with the WAL settings in force; reopens once to apply them.
 */
export async function createWithBoundedWal(dir, create) {
  const options = { initDbStartParams: INITDB_ARGS };
  let pg = await create(options);
  if (String(dir).startsWith("memory://")) return pg;
  const seg = await pg.query(`SELECT (pg_size_bytes(current_setting('wal_segment_size')) / 1048576)::int AS mb`);
  let changed = false;
  for (const [name, value] of Object.entries(walSettingsFor(seg.rows[0].mb))) {
    const cur = await pg.query(`SHOW ${name}`);
    if (cur.rows[0]?.[name] === value) continue;
    await pg.exec(`ALTER SYSTEM SET ${name} = '${value}'`);
    changed = true;
  }
  if (!changed) return pg;
  await pg.close();
  pg = await create(options);
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
