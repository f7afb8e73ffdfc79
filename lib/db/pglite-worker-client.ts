import "server-only";
import { existsSync } from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { messages, types, type ParserOptions, type QueryOptions, type Results } from "@electric-sql/pglite";

// The main-thread side of lib/db/pglite-worker.mjs: PGlite's query/exec/transaction contract
// (what pglite-prisma-adapter calls) over messages to a worker thread that owns the database.
// The worker returns raw text values; parsing happens here with PGlite's own parsers (and the
// caller's), so results are what an in-process PGlite returns. Database errors come back as
// PGlite's `messages.DatabaseError`, which the adapter maps to Prisma errors (P2002, …).

type Parser = (x: string, typeId?: number) => unknown;
type Parsers = Record<number | string, Parser>;

interface RawResult {
  rows: (string | null)[][];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
  command?: string;
  rowCount?: number;
}

type SerializedError =
  | {
      kind: "database";
      message: string;
      length: number;
      name: string;
      fields: Record<string, unknown>;
      stack?: string;
      hasQuery: boolean;
    }
  | { kind: "error"; name: string; message: string; stack?: string };

type Request =
  | { op: "query"; sql: string; params: unknown[]; paramTypes?: number[]; txId?: number }
  | { op: "exec"; sql: string; txId?: number }
  | { op: "begin" }
  | { op: "rollback"; txId: number }
  | { op: "end"; txId: number; commit: boolean }
  | { op: "close" }
  | { op: "ping" }
  | { op: "atomic"; statements: AtomicStatement[] };

/** One statement of an atomic list (see atomic()). */
export interface AtomicStatement {
  sql: string;
  params?: unknown[];
  /** The list is rolled back (and `failedAt` set) if this statement returns no row. */
  requireRows?: boolean;
}

export interface AtomicResult {
  /** Index of the `requireRows` statement that returned no row (everything rolled back), or null. */
  failedAt: number | null;
  /** Per statement (when committed): rows returned and rows affected. */
  results: { rowCount: number; affectedRows: number }[];
}

type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: SerializedError };
type Ready = { ready: true; arrayTypes: [number, number][] } | { ready: false; error: SerializedError };

interface Pending {
  resolve(value: unknown): void;
  reject(e: unknown): void;
}

/** The transaction object handed to transaction() callbacks (the part of PGlite's the app uses). */
export interface WorkerTransaction {
  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(sql: string, options?: QueryOptions): Promise<Results[]>;
  rollback(): Promise<void>;
  readonly closed: boolean;
}

/** lib/db/pglite-worker.mjs, from the repository root (the app always runs from there). */
export function defaultWorkerEntry(): string {
  return path.join(/* turbopackIgnore: true */ process.cwd(), "lib", "db", "pglite-worker.mjs");
}

function toError(e: SerializedError, context?: { sql: string; params?: unknown[]; options?: QueryOptions }): Error {
  if (e.kind === "database") {
    const err = new messages.DatabaseError(e.message, e.length, e.name as messages.MessageName);
    Object.assign(err, e.fields);
    if (e.hasQuery && context) Object.assign(err, { query: context.sql, params: context.params, queryOptions: context.options });
    if (e.stack) err.stack = `${err.stack}\n    --- in the PGlite worker ---\n${e.stack.split("\n").slice(1).join("\n")}`;
    return err;
  }
  const err = new Error(e.message);
  err.name = e.name;
  if (e.stack) err.stack = `${err.stack}\n    --- in the PGlite worker ---\n${e.stack.split("\n").slice(1).join("\n")}`;
  return err;
}

export class PGliteWorkerClient {
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  /** Why calls fail from now on (worker exited, crashed or was closed). */
  private failure: string | undefined;
  private closing = false;
  /** PGlite's parsers for this instance: the defaults plus one per array type in pg_type. */
  private readonly parsers: Parsers;
  private readonly merged = new WeakMap<ParserOptions, Parsers>();

  private constructor(
    /** Exposed for tests (e.g. to terminate it under a statement). */
    readonly worker: Worker,
    arrayTypes: [number, number][],
  ) {
    const parsers: Parsers = { ...(types.parsers as Parsers) };
    for (const [typarray, oid] of arrayTypes) {
      parsers[typarray] = (x) => types.arrayParser(x, parsers[oid] as types.Parser, typarray);
    }
    this.parsers = parsers;
    worker.on("message", (m: Reply) => this.onReply(m));
    worker.on("error", (e) => this.fail(`The PGlite worker crashed: ${e.message}`));
    worker.on("messageerror", (e) => this.fail(`The PGlite worker sent an unreadable message: ${e.message}`));
    worker.on("exit", (code) =>
      this.fail(this.closing ? "The database is closed" : `The PGlite worker exited unexpectedly (exit code ${code})`),
    );
    worker.unref();
  }

  /** Starts the worker, which opens (or creates) the database in `dataDir`. */
  static open(dataDir: string, entry = defaultWorkerEntry()): Promise<PGliteWorkerClient> {
    if (!existsSync(/* turbopackIgnore: true */ entry)) {
      return Promise.reject(new Error(`PGlite worker entry not found at ${entry} (the app runs from the repository root); set PGLITE_WORKER=off to run PGlite in process`));
    }
    // No execArgv: the worker needs neither the tsx loader nor the react-server condition.
    // Reflect.construct: the bundler must not treat the entry as a module to bundle (a dynamic
    // `new Worker(path)` makes Turbopack try to bundle every file of the project); Node loads it.
    const worker: Worker = Reflect.construct(Worker, [/* turbopackIgnore: true */ entry, { workerData: { dir: dataDir }, execArgv: [] }]);
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
      };
      const onMessage = (m: Ready) => {
        cleanup();
        if (m.ready) resolve(new PGliteWorkerClient(worker, m.arrayTypes));
        else {
          void worker.terminate();
          reject(toError(m.error));
        }
      };
      const onError = (e: Error) => {
        cleanup();
        reject(new Error(`The PGlite worker failed to start: ${e.message}`, { cause: e }));
      };
      const onExit = (code: number) => {
        cleanup();
        reject(new Error(`The PGlite worker exited while starting (exit code ${code})`));
      };
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
    });
  }

  private call<R>(req: Request): Promise<R> {
    if (this.failure) return Promise.reject(new Error(this.failure));
    const id = ++this.seq;
    return new Promise<R>((resolve, reject) => {
      try {
        this.worker.postMessage({ ...req, id });
      } catch (e) {
        reject(e);
        return;
      }
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      // Keep the process alive while the worker owes an answer, not while it idles.
      if (this.pending.size === 1) this.worker.ref();
    });
  }

  private onReply(m: Reply) {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.worker.unref();
    if (m.ok) p.resolve(m.result);
    else p.reject(m.error);
  }

  private fail(reason: string) {
    this.failure ??= reason;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(new Error(this.failure));
  }

  private parsersFor(options?: QueryOptions): Parsers {
    const custom = options?.parsers;
    if (!custom) return this.parsers;
    let p = this.merged.get(custom);
    if (!p) {
      p = { ...this.parsers, ...(custom as Parsers) };
      this.merged.set(custom, p);
    }
    return p;
  }

  private toResults<T>(res: RawResult, options?: QueryOptions): Results<T> {
    const parsers = this.parsersFor(options);
    const { fields } = res;
    const fns = fields.map((f) => parsers[f.dataTypeID] ?? (types.parsers as Parsers)[f.dataTypeID]);
    const value = (v: string | null, i: number) => {
      if (v === null) return null;
      const fn = fns[i];
      return fn ? fn(v, fields[i]!.dataTypeID) : v;
    };
    const rows: unknown[] =
      options?.rowMode === "array"
        ? res.rows.map((r) => r.map(value))
        : res.rows.map((r) => Object.fromEntries(r.map((v, i) => [fields[i]!.name, value(v, i)])));
    return Object.assign(res, { rows }) as unknown as Results<T>;
  }

  private checkOptions(options?: QueryOptions) {
    if (options?.serializers || options?.blob || options?.onNotice) {
      throw new Error("The PGlite worker does not support serializers, blob or onNotice options; set PGLITE_WORKER=off");
    }
  }

  private async runQuery<T>(sql: string, params: unknown[] = [], options: QueryOptions | undefined, txId?: number) {
    this.checkOptions(options);
    const req: Request = { op: "query", sql, params, txId };
    if (options?.paramTypes) req.paramTypes = options.paramTypes;
    try {
      return this.toResults<T>(await this.call<RawResult>(req), options);
    } catch (e) {
      throw isSerialized(e) ? toError(e, { sql, params, options }) : e;
    }
  }

  private async runExec(sql: string, options: QueryOptions | undefined, txId?: number): Promise<Results[]> {
    this.checkOptions(options);
    try {
      const results = await this.call<RawResult[]>({ op: "exec", sql, txId });
      return results.map((r) => this.toResults(r, options));
    } catch (e) {
      throw isSerialized(e) ? toError(e) : e;
    }
  }

  private async simple<R>(req: Request): Promise<R> {
    try {
      return await this.call<R>(req);
    } catch (e) {
      throw isSerialized(e) ? toError(e) : e;
    }
  }

  query = <T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> =>
    this.runQuery<T>(sql, params, options);

  exec = (sql: string, options?: QueryOptions): Promise<Results[]> => this.runExec(sql, options);

  /**
   * PGlite#transaction: BEGIN in the worker, which holds PGlite's transaction lock (other
   * statements queue behind it) until the callback settles; then COMMIT, or ROLLBACK and rethrow.
   */
  transaction = async <T>(callback: (tx: WorkerTransaction) => Promise<T>): Promise<T> => {
    const txId = await this.simple<number>({ op: "begin" });
    let closed = false;
    const checkClosed = () => {
      if (closed) throw new Error("Transaction is closed");
    };
    const tx: WorkerTransaction = {
      query: async <R>(sql: string, params?: unknown[], options?: QueryOptions) => {
        checkClosed();
        return this.runQuery<R>(sql, params, options, txId);
      },
      exec: async (sql: string, options?: QueryOptions) => {
        checkClosed();
        return this.runExec(sql, options, txId);
      },
      rollback: async () => {
        checkClosed();
        await this.simple({ op: "rollback", txId });
        closed = true;
      },
      get closed() {
        return closed;
      },
    };
    let result: T;
    try {
      result = await callback(tx);
    } catch (e) {
      closed = true;
      await this.simple({ op: "end", txId, commit: false });
      throw e;
    }
    closed = true;
    await this.simple({ op: "end", txId, commit: true });
    return result;
  };

  /**
   * Runs `statements` in one transaction in the worker, as one message: the transaction holds
   * the database for the statements' time only, not for a round trip to this thread per
   * statement. A database error rolls back and rejects as query() would.
   */
  atomic = async (statements: AtomicStatement[]): Promise<AtomicResult> => {
    try {
      return await this.call<AtomicResult>({ op: "atomic", statements });
    } catch (e) {
      throw isSerialized(e) ? toError(e) : e;
    }
  };

  /**
   * Resolves when the worker thread answers: between two statements, without waiting for the
   * statements queued before it or for an open transaction (health checks; see the worker).
   */
  ping = (): Promise<{ openTransactions: number }> => this.simple({ op: "ping" });

  /** Closes PGlite in the worker (data persisted), then stops the worker. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    try {
      if (!this.failure) await this.simple({ op: "close" });
    } finally {
      await this.worker.terminate();
      this.fail("The database is closed");
    }
  }
}

function isSerialized(e: unknown): e is SerializedError {
  return typeof e === "object" && e !== null && !(e instanceof Error) && "kind" in e && "message" in e;
}
