import "server-only";
import { cpSync, existsSync } from "node:fs";
import path from "node:path";
import type { Worker } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "./pglite-extensions.mjs";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import pg from "pg";
import { getEnv } from "@/lib/env";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { acquireDataDirLock } from "./data-dir-lock";
import { applyMigrations, type SqlRunner } from "./migrate";
import { PGliteStatementCache } from "./pglite-statement-cache";
import { openEmbedded } from "./pglite-open.mjs";
import { startCheckpointer } from "./pglite-wal.mjs";
import { PGliteWorkerClient, type AtomicResult, type AtomicStatement } from "./pglite-worker-client";

export type { AtomicResult, AtomicStatement };

export type Db = PrismaClient;

/**
 * Raw SQL without Prisma's client: the chat turn's hot statements (KB summary, conversation and
 * message writes, BM25, chunk fetch) are all raw SQL already, and Prisma's request pipeline
 * cost more main-thread time per turn than the statements themselves. Same method names as
 * Prisma's raw API, so query modules accept either; PrismaClient satisfies this type.
 */
export interface RawDb {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

interface DbHandle {
  prisma: PrismaClient;
  raw: RawDb;
  kind: "pglite" | "postgres";
  /** Embedded PGlite in a worker thread: that thread (tests watch its messages). */
  pgliteWorker?: Worker;
  /** A liveness round trip to the database (see pingDb). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

type QueryFn = (sql: string, params: unknown[]) => Promise<{ rows: unknown[]; affectedRows?: number }>;

function rawDb(query: QueryFn): RawDb {
  return {
    $queryRawUnsafe: async <T>(sql: string, ...values: unknown[]) => (await query(sql, values)).rows as T,
    $executeRawUnsafe: async (sql: string, ...values: unknown[]) => (await query(sql, values)).affectedRows ?? 0,
  };
}

/**
 * Embedded PGlite in its worker thread: the Prisma clients whose statement lists can go to the
 * worker as one message (see runAtomic). A WeakMap, so a closed handle's client is not kept.
 */
const atomicRunners = new WeakMap<PrismaClient, (statements: AtomicStatement[]) => Promise<AtomicResult>>();

const GUARD_FAILED = Symbol("guard failed");

/**
 * Runs `statements` in one transaction and returns what each did; a `requireRows` statement
 * that returns no row rolls everything back (`failedAt` its index). On embedded PGlite in its
 * worker thread the list is one message to that thread (one round trip, the lock held only for
 * the statements' own time); elsewhere (a PostgreSQL server, PGlite in process) a Prisma
 * transaction runs the same statements in order. The index writer's batches use it (issue 22).
 */
export async function runAtomic(db: PrismaClient, statements: AtomicStatement[], opts: { timeoutMs: number }): Promise<AtomicResult> {
  const inWorker = atomicRunners.get(db);
  if (inWorker) return inWorker(statements);
  const results: AtomicResult["results"] = [];
  let failedAt: number | null = null;
  try {
    await db.$transaction(
      async (tx) => {
        for (let i = 0; i < statements.length; i++) {
          const s = statements[i]!;
          if (s.requireRows) {
            const rows = await tx.$queryRawUnsafe<unknown[]>(s.sql, ...(s.params ?? []));
            if (rows.length === 0) {
              failedAt = i;
              throw GUARD_FAILED;
            }
            results.push({ rowCount: rows.length, affectedRows: rows.length });
          } else {
            const n = await tx.$executeRawUnsafe(s.sql, ...(s.params ?? []));
            results.push({ rowCount: 0, affectedRows: n });
          }
        }
      },
      { timeout: opts.timeoutMs, maxWait: opts.timeoutMs },
    );
  } catch (e) {
    if (e !== GUARD_FAILED) throw e;
    return { failedAt, results: [] };
  }
  return { failedAt: null, results };
}

// One instance per process, cached on globalThis so Next's separate route bundles and dev
// reloads share it (a second PGlite on the same directory would corrupt it).
const g = globalThis as unknown as { __kaDb?: Promise<DbHandle> };

/** What both PGlite paths (in process behind the statement cache, or the worker client) offer. */
interface PgliteQueryable {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[]; affectedRows?: number }>;
  exec(sql: string): Promise<unknown>;
}

async function migrateThrough(client: PgliteQueryable): Promise<void> {
  const runner: SqlRunner = {
    exec: async (sql) => void (await client.exec(sql)),
    query: async <T>(sql: string, params?: unknown[]) => (await client.query<T>(sql, params)).rows,
  };
  await applyMigrations(runner);
}

/** Prisma (through the adapter, which only calls query/exec/transaction) and RawDb over one client. */
function pgliteHandle(client: PgliteQueryable, closeClient: () => Promise<void>, release: () => void, ping?: () => Promise<unknown>): DbHandle {
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(client as unknown as PGlite) });
  return {
    prisma,
    raw: rawDb((sql, params) => client.query(sql, params)),
    kind: "pglite",
    ping: async () => void (await (ping ? ping() : client.query("SELECT 1"))),
    async close() {
      try {
        await prisma.$disconnect();
        await closeClient();
      } finally {
        release();
      }
    },
  };
}

/**
 * Test runs only: KA_TEST_PGLITE_TEMPLATE names a closed, migrated PGlite directory that a new
 * embedded database starts as a copy of (built once per run by e2e/support/temp-dir-setup.ts).
 * initdb in WASM takes 3-14 s on a 2-core machine and the integration suite opens over a hundred
 * fresh databases; a copy and an open take about a second. The copy is the same files initdb and
 * the migrations would write, so what a test sees is what a first start gives.
 */
function startFromTestTemplate(dir: string): void {
  const template = process.env.KA_TEST_PGLITE_TEMPLATE;
  // turbopackIgnore: paths known only at run time (without it the build traces the whole project).
  if (!template || existsSync(/* turbopackIgnore: true */ dir)) return;
  cpSync(/* turbopackIgnore: true */ template, /* turbopackIgnore: true */ dir, { recursive: true });
}

async function openPglite(dataDir: string, inWorker: boolean): Promise<DbHandle> {
  const release = dataDir.startsWith("memory://") ? () => {} : acquireDataDirLock(dataDir);
  try {
    const dir = dataDir.startsWith("memory://") ? dataDir : path.join(dataDir, "pglite");
    if (!dataDir.startsWith("memory://")) startFromTestTemplate(dir);
    if (inWorker) return await openPgliteWorker(dir, release);
    const client = await openEmbedded(dir, (options) => PGlite.create(dir, { ...options, extensions: PGLITE_EXTENSIONS }));
    try {
      await migrateThrough(client);
    } catch (e) {
      await client.close().catch(() => {});
      throw e;
    }
    // The cache keeps statements prepared (see pglite-statement-cache.mjs).
    const stopCheckpointer = startCheckpointer(client);
    return pgliteHandle(new PGliteStatementCache(client), () => (stopCheckpointer(), client.close()), release);
  } catch (e) {
    release();
    throw e;
  }
}

// PGlite in a worker thread (pglite-worker.mjs): SQL runs on its own core instead of
// between the app's HTTP/SSE work. The worker owns the instance and the statement cache;
// migrations run through it like any other statement.
async function openPgliteWorker(dir: string, release: () => void): Promise<DbHandle> {
  const client = await PGliteWorkerClient.open(dir);
  try {
    await migrateThrough(client);
  } catch (e) {
    await client.close().catch(() => {});
    throw e;
  }
  const h = pgliteHandle(client, () => client.close(), release, () => client.ping());
  atomicRunners.set(h.prisma, client.atomic);
  return { ...h, pgliteWorker: client.worker };
}

/**
 * How long an idle connection is kept (pg's default is 10 s). A backend's first call of the
 * search function compiles and plans it: ~9 ms of the server's CPU against ~0.9 ms once warm
 * (psql on the bench KB), so a pool that keeps reconnecting keeps paying that.
 */
const POOL_IDLE_MS = 60_000;

/**
 * Two small pools: the chat turn's raw SQL, and Prisma (sessions, uploads, ingestion's
 * transactions, which hold a connection each, hence INGEST_CONCURRENCY more). Kept apart so a
 * burst of ingestion transactions cannot starve the chat. Small on purpose: on a 2-core server a
 * 50-stream chat burst reached `references` sooner with 5 + 7 connections than with 10 + 20
 * (docs/benchmarks.md): fewer cold backends, fewer processes competing for the cores.
 * application_name tells the two apart in pg_stat_activity.
 */
async function openPostgres(url: string, poolMax: number, prismaPoolMax: number): Promise<DbHandle> {
  const migrator = new pg.Client({ connectionString: url });
  await migrator.connect();
  try {
    await applyMigrations({
      exec: async (sql) => void (await migrator.query(sql)),
      query: async <T>(sql: string, params?: unknown[]) =>
        (await migrator.query(sql, params as unknown[])).rows as T[],
    });
  } finally {
    await migrator.end();
  }
  const prisma = new PrismaClient({
    adapter: new PrismaPg({
      connectionString: url,
      max: prismaPoolMax,
      idleTimeoutMillis: POOL_IDLE_MS,
      application_name: "knowledge-assistant/prisma",
    }),
  });
  const pool = new pg.Pool({
    connectionString: url,
    max: poolMax,
    idleTimeoutMillis: POOL_IDLE_MS,
    application_name: "knowledge-assistant/raw",
  });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  return {
    prisma,
    raw: rawDb(async (sql, params) => {
      const r = await pool.query(sql, params);
      return { rows: r.rows, affectedRows: r.rowCount ?? 0 };
    }),
    kind: "postgres",
    ping: async () => void (await pool.query("SELECT 1")),
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

export interface OpenOptions {
  databaseUrl?: string;
  dataDir?: string;
  /** PGlite in a worker thread; default: PGLITE_WORKER from the environment ("off" runs it in process). */
  pgliteWorker?: boolean;
  /**
   * PostgreSQL server: connections of the raw-SQL pool and of Prisma's (see openPostgres);
   * default DATABASE_POOL_MAX, and that plus INGEST_CONCURRENCY.
   */
  poolMax?: number;
  prismaPoolMax?: number;
}

export function openDatabase(opts: OpenOptions): Promise<DbHandle> {
  if (opts.databaseUrl) {
    const env = getEnv();
    return openPostgres(opts.databaseUrl, opts.poolMax ?? env.DATABASE_POOL_MAX, opts.prismaPoolMax ?? env.DATABASE_POOL_MAX + env.INGEST_CONCURRENCY);
  }
  return openPglite(opts.dataDir ?? "./data", opts.pgliteWorker ?? pgliteWorkerDefault());
}

function pgliteWorkerDefault(): boolean {
  return process.env.PGLITE_WORKER !== "off";
}

function handle(): Promise<DbHandle> {
  if (!g.__kaDb) {
    const env = getEnv();
    g.__kaDb = openDatabase({
      databaseUrl: env.DATABASE_URL,
      dataDir: env.DATA_DIR,
      pgliteWorker: env.PGLITE_WORKER === "on",
    });
    g.__kaDb.catch(() => {
      g.__kaDb = undefined;
    });
  }
  return g.__kaDb;
}

/** The Prisma client, with migrations applied. */
export async function getDb(): Promise<Db> {
  return (await handle()).prisma;
}

/** The raw SQL runner of the same database (see RawDb). */
export async function getRawDb(): Promise<RawDb> {
  return (await handle()).raw;
}

/**
 * Liveness of the database for GET /api/health. A PostgreSQL server: `SELECT 1` on the raw pool.
 * Embedded PGlite in its worker thread: the thread's answer to a ping, which does not queue
 * behind other statements or an open indexing batch (one connection: a `SELECT 1` there waited
 * for every statement sent before it, and health took seconds while a large file indexed). In
 * process (PGLITE_WORKER=off): `SELECT 1`. Rejects after `timeoutMs`.
 */
export async function pingDb(timeoutMs: number): Promise<void> {
  const h = await handle();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      h.ping(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export async function getDbKind(): Promise<"pglite" | "postgres"> {
  return (await handle()).kind;
}

export async function closeDb(): Promise<void> {
  const h = g.__kaDb;
  g.__kaDb = undefined;
  if (h) await (await h).close();
}
