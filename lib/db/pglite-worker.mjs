// The embedded database in a worker thread (see pglite-worker-client.ts for the main-thread side).
//
// PGlite runs SQL synchronously in WASM; in the main thread every statement stops the app's
// HTTP/SSE work. Here it owns one core while the app's JavaScript has the other. Plain ES
// module that imports only npm packages and the plain-JS statement cache, so Node loads it as
// is under vitest, `node --import tsx` scripts and `next start` alike.
//
// Protocol (structured clone, one reply per request id):
//   main → worker  { id, op: "query", sql, params, paramTypes?, txId? }
//                  { id, op: "exec", sql, txId? }
//                  { id, op: "begin" } → txId        { id, op: "rollback", txId }
//                  { id, op: "end", txId, commit }   { id, op: "close" }
//                  { id, op: "ping" } → { openTransactions } (answered at once, see below)
//                  { id, op: "atomic", statements: [{ sql, params, requireRows? }, …] }
//                    → { failedAt: null | i, results: [{ rowCount, affectedRows }, …] }
//                    (one transaction for the list, see atomic() below)
//   worker → main  { id, ok: true, result } | { id, ok: false, error }
//   once at start  { ready: true, arrayTypes: [[typarray, elementOid], …] } | { ready: false, error }
// Results carry raw text values (identity parsers for every type) plus the fields' dataTypeIDs;
// the main thread applies the parsers, since functions cannot cross threads.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, messages, types } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "./pglite-extensions.mjs";
import { PGliteStatementCache } from "./pglite-statement-cache.mjs";
import { openEmbedded } from "./pglite-open.mjs";
import { startCheckpointer } from "./pglite-wal.mjs";

const port = parentPort;
if (!port) throw new Error("pglite-worker.mjs must run in a worker thread");

/** @type {PGlite} */
let pg;
/** @type {PGliteStatementCache} */
let cache;
/** Identity parsers for every type PGlite knows: values stay text. */
let raw = {};
let closed = false;
let stopCheckpointer;

/** Open transactions: PGlite's transaction() callback is held open until "end". */
const txs = new Map();
let txSeq = 0;

const identity = (x) => x;

function serializeError(e) {
  if (e instanceof messages.DatabaseError) {
    const fields = {};
    for (const [k, v] of Object.entries(e)) {
      if (k === "queryOptions" || k === "params") continue;
      if (v === undefined || v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean") fields[k] = v;
    }
    return { kind: "database", message: e.message, length: e.length, name: e.name, fields, stack: e.stack, hasQuery: "query" in e };
  }
  const err = e instanceof Error ? e : new Error(String(e));
  return { kind: "error", name: err.name, message: err.message, stack: err.stack };
}

function txOp(txId, fn) {
  const entry = txs.get(txId);
  if (!entry) return Promise.reject(new Error("Transaction is closed"));
  // Operations of one transaction run in the order they were sent (the adapter does not
  // await rollback() before ending the transaction).
  const p = entry.chain.then(() => fn(entry.tx));
  entry.chain = p.then(
    () => {},
    () => {},
  );
  return p;
}

function begin() {
  return new Promise((resolve, reject) => {
    const id = ++txSeq;
    let started = false;
    const done = cache.transaction(
      (tx) =>
        new Promise((commit, abort) => {
          started = true;
          txs.set(id, { tx, chain: Promise.resolve(), commit, abort, done });
          resolve(id);
        }),
    );
    // BEGIN failed (or the transaction never started): the caller gets the error. Later
    // failures (COMMIT) are reported by "end".
    done.catch((e) => {
      if (!started) reject(e);
    });
  });
}

const ROLLED_BACK = Symbol("rolled back");

async function end(txId, commit) {
  const entry = txs.get(txId);
  if (!entry) throw new Error("Transaction is closed");
  await entry.chain;
  txs.delete(txId);
  if (commit) {
    entry.commit();
    await entry.done;
    return null;
  }
  entry.abort(ROLLED_BACK);
  try {
    await entry.done;
  } catch (e) {
    if (e !== ROLLED_BACK) throw e;
  }
  return null;
}

const GUARD_FAILED = Symbol("guard failed");

/**
 * A list of statements in ONE transaction, sent as one message (issue 22, indexing batches):
 * with begin / each statement / end as separate messages the transaction held PGlite's lock
 * across as many round trips to the main thread, each waiting for that thread's event loop
 * (busy with HTTP, SSE and Prisma's request pipeline), and other statements queued behind it. A
 * statement with `requireRows` that returns no row rolls the whole list back and reports its
 * index (`failedAt`): the ownership check of an indexing batch. Between two statements this
 * thread takes a turn of its event loop, so a ping waits for one statement, not for the list.
 */
async function atomic(statements) {
  const results = [];
  let failedAt = null;
  try {
    await cache.transaction(async (tx) => {
      for (let i = 0; i < statements.length; i++) {
        if (i > 0) await new Promise((r) => setImmediate(r));
        const s = statements[i];
        const r = await tx.query(s.sql, s.params ?? [], { rowMode: "array", parsers: raw });
        if (s.requireRows && r.rows.length === 0) {
          failedAt = i;
          throw GUARD_FAILED;
        }
        results.push({ rowCount: r.rows.length, affectedRows: r.affectedRows ?? 0 });
      }
    });
  } catch (e) {
    if (e !== GUARD_FAILED) throw e;
    return { failedAt, results: [] };
  }
  return { failedAt: null, results };
}

/**
 * Statements outside a transaction (and BEGINs) enter PGlite one at a time, with a turn of this
 * thread's event loop between two. PGlite queues calls on a mutex that hands over through
 * promise callbacks: every statement already handed to it ran back to back without this thread
 * reading its messages, so a ping waited for the whole queue (health up to 2 s while indexing,
 * bench:ingest --under-load). Statements of an open transaction bypass this queue (they are
 * ordered per transaction by txOp): one waiting here for that transaction to end could
 * otherwise never let it end.
 */
const outside = [];
let outsideBusy = false;
function enqueueOutside(fn) {
  return new Promise((resolve, reject) => {
    outside.push({ fn, resolve, reject });
    pumpOutside();
  });
}
function pumpOutside() {
  if (outsideBusy || outside.length === 0) return;
  outsideBusy = true;
  const { fn, resolve, reject } = outside.shift();
  let p;
  try {
    p = Promise.resolve(fn());
  } catch (e) {
    p = Promise.reject(e);
  }
  p.then(resolve, reject).finally(() =>
    setImmediate(() => {
      outsideBusy = false;
      pumpOutside();
    }),
  );
}

function dispatch(msg) {
  if (closed) return Promise.reject(new Error("The PGlite worker is closed"));
  const opts = { rowMode: "array", parsers: raw };
  switch (msg.op) {
    case "query":
      if (msg.paramTypes) opts.paramTypes = msg.paramTypes;
      return msg.txId ? txOp(msg.txId, (tx) => tx.query(msg.sql, msg.params, opts)) : enqueueOutside(() => cache.query(msg.sql, msg.params, opts));
    case "exec":
      return msg.txId ? txOp(msg.txId, (tx) => tx.exec(msg.sql, opts)) : enqueueOutside(() => cache.exec(msg.sql, opts));
    case "begin":
      return enqueueOutside(begin);
    case "atomic":
      return enqueueOutside(() => atomic(msg.statements));
    case "rollback":
      return txOp(msg.txId, (tx) => tx.rollback()).then(() => null);
    case "end":
      return end(msg.txId, msg.commit);
    case "close":
      closed = true;
      stopCheckpointer?.();
      return pg.close().then(() => null);
    default:
      return Promise.reject(new Error(`Unknown PGlite worker operation ${String(msg.op)}`));
  }
}

// Bench aid (KA_PGLITE_PROFILE=ms): every interval on stderr, how busy this thread was (event
// loop utilisation: 1.0 = the database ran without a pause) and the statements that took the
// most wall time (lock waits included), to see where a probe or an indexing batch waits.
const profileEvery = Number(process.env.KA_PGLITE_PROFILE ?? 0);
/** @type {Map<string, { n: number, ms: number, max: number }> | null} */
const profile = profileEvery > 0 ? new Map() : null;
if (profile) {
  let elu = performance.eventLoopUtilization();
  setInterval(() => {
    const now = performance.eventLoopUtilization();
    const u = performance.eventLoopUtilization(now, elu).utilization;
    elu = now;
    const top = [...profile.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 5);
    const fmt = ([k, v]) => `${v.n}x ${Math.round(v.ms)}ms (max ${Math.round(v.max)}) ${k}`;
    console.error(`[pglite] busy ${(u * 100).toFixed(0)}% | ${top.map(fmt).join(" | ")}`);
    profile.clear();
  }, profileEvery).unref();
}
function profiled(msg, p) {
  if (!profile) return p;
  const t0 = performance.now();
  const key = `${msg.op}${msg.txId ? "(tx)" : ""} ${(msg.sql ?? msg.statements?.at(-1)?.sql ?? "").replace(/\s+/g, " ").trim().slice(0, 50)}`;
  const done = () => {
    const ms = performance.now() - t0;
    const e = profile.get(key) ?? { n: 0, ms: 0, max: 0 };
    e.n++;
    e.ms += ms;
    e.max = Math.max(e.max, ms);
    profile.set(key, e);
  };
  p.then(done, done);
  return p;
}

port.on("message", (msg) => {
  // Liveness (GET /api/health): answered by this thread at once, not queued behind statements
  // or a transaction holding PGlite's lock. It waits only for the statement running right now,
  // which is what "the database thread is alive and making progress" means.
  if (msg.op === "ping") {
    if (closed) port.postMessage({ id: msg.id, ok: false, error: serializeError(new Error("The PGlite worker is closed")) });
    else port.postMessage({ id: msg.id, ok: true, result: { openTransactions: txs.size } });
    return;
  }
  profiled(msg, dispatch(msg)).then(
    (result) => {
      port.postMessage({ id: msg.id, ok: true, result });
      // After a statement outside a transaction or a commit: WAL may have grown past the mark.
      if (!msg.txId && (msg.op === "query" || msg.op === "exec" || msg.op === "end" || msg.op === "atomic")) stopCheckpointer?.nudge?.();
    },
    (e) => port.postMessage({ id: msg.id, ok: false, error: serializeError(e) }),
  );
});

try {
  pg = await openEmbedded(workerData.dir, (options) => PGlite.create(workerData.dir, { ...options, extensions: PGLITE_EXTENSIONS }));
  cache = new PGliteStatementCache(pg);
  stopCheckpointer = startCheckpointer(pg);
  for (const k of Object.keys({ ...types.parsers, ...pg.parsers })) raw[k] = identity;
  // The same query PGlite ran at start to register its array parsers (BasePGlite._initArrayTypes).
  const arrays = await pg.query(`
    SELECT b.oid, b.typarray
    FROM pg_catalog.pg_type a
    LEFT JOIN pg_catalog.pg_type b ON b.oid = a.typelem
    WHERE a.typcategory = 'A'
    GROUP BY b.oid, b.typarray
    ORDER BY b.oid
  `);
  const arrayTypes = arrays.rows.filter((r) => r.oid != null && r.typarray != null).map((r) => [r.typarray, r.oid]);
  port.postMessage({ ready: true, arrayTypes });
} catch (e) {
  port.postMessage({ ready: false, error: serializeError(e) });
}
