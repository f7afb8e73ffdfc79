// PGlite in a worker thread behind a main-thread facade (lib/db/pglite-worker-client.ts): the
// same results as an in-process PGlite for every type the app uses, PGlite's DatabaseError with
// its fields (and Prisma's P2002 on top), transactions that hold the database like PGlite's own,
// a worker death that rejects instead of hanging, and a close that persists the data.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite, messages, type QueryOptions } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "@/lib/db/pglite-extensions.mjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/client";
import { PGliteWorkerClient } from "@/lib/db/pglite-worker-client";

const SCHEMA = `
  CREATE EXTENSION IF NOT EXISTS vector;
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE TABLE t (
    id text PRIMARY KEY, n int4 NOT NULL, big int8, f float8, ok bool, at timestamptz, doc jsonb,
    tags text[], nums int[], bin bytea, emb vector(3), CONSTRAINT t_n_key UNIQUE (n)
  );`;

const INSERT = `INSERT INTO t (id, n, big, f, ok, at, doc, tags, nums, bin, emb) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;
const ROWS: unknown[][] = [
  ["a", 1, 9007199254740993n, 1.5, true, new Date("2026-12-02T10:00:00.123Z"), JSON.stringify({ k: [1, 2], s: "é\"\\" }), ["x", "y z", 'q"uote', "NULL"], [1, 2, 3], new Uint8Array([0, 1, 254, 255]), "[1,2,3]"],
  ["b", 2, 42, -0.25, false, "2026-01-01 00:00:00+00", "[1, null, true]", [], [], new Uint8Array([]), "[0.5,0,-1]"],
  ["c", 3, null, null, null, null, null, null, null, null, null],
  ["d", 4, -5, 1e300, true, new Date(0), '"just a string"', ["{braces}", "a,b", null], [null, 7], Buffer.from("hello"), null],
];

// What pglite-prisma-adapter passes: text for timestamps/int8/jsonb, its own bytea decoder.
const adapterLikeParsers: QueryOptions["parsers"] = {
  20: (x) => x,
  1184: (x) => x.replace(" ", "T"),
  3802: (x) => x,
  1185: (x) => `array:${x}`,
};

describe("PGlite worker facade", () => {
  let local: PGlite;
  let worker: PGliteWorkerClient;

  beforeAll(async () => {
    local = await PGlite.create("memory://", { extensions: PGLITE_EXTENSIONS });
    worker = await PGliteWorkerClient.open("memory://");
    for (const db of [local, worker]) {
      await db.exec(SCHEMA);
      for (const r of ROWS) await db.query(INSERT, r);
    }
  });
  afterAll(async () => {
    await worker?.close();
    await local?.close();
  });

  const SELECT = `SELECT id, n, big, f, ok, at, doc, tags, nums, bin, emb, emb::text AS emb_text,
      ARRAY[at, at] AS ats, ARRAY[doc] AS docs, ARRAY[big] AS bigs, ARRAY[bin] AS bins, ARRAY[f] AS fs, ARRAY[ok] AS oks,
      n::int2 AS small, f::numeric AS num, now() - now() AS iv, id::varchar AS v, 'x'::name AS nm
    FROM t WHERE n = ANY($1::int[]) ORDER BY id`;

  it("returns what PGlite's own query returns, in object and array row modes, with and without custom parsers", async () => {
    const ns = [1, 2, 3, 4];
    for (const options of [undefined, { rowMode: "array" as const }, { parsers: adapterLikeParsers }, { rowMode: "array" as const, parsers: adapterLikeParsers }]) {
      const want = await local.query(SELECT, [ns], options);
      const got = await worker.query(SELECT, [ns], options);
      expect(got.rows).toEqual(want.rows);
      expect(got.fields).toEqual(want.fields);
      expect(got.affectedRows).toBe(want.affectedRows);
    }
    const a = (await worker.query<Record<string, unknown>>(SELECT, [[1]])).rows[0]!;
    expect(a).toMatchObject({ id: "a", n: 1, big: 9007199254740993n, f: 1.5, ok: true, at: new Date("2026-12-02T10:00:00.123Z") });
    expect(a.doc).toEqual({ k: [1, 2], s: 'é"\\' });
    expect(a.tags).toEqual(["x", "y z", 'q"uote', "NULL"]);
    expect(a.nums).toEqual([1, 2, 3]);
    expect(a.bin).toEqual(new Uint8Array([0, 1, 254, 255]));
    expect(a.emb).toBe("[1,2,3]");
  });

  it("matches PGlite for writes (affectedRows) and exec (several result sets)", async () => {
    for (const db of [local, worker]) await db.query(`CREATE TEMP TABLE IF NOT EXISTS w (x int)`);
    const upd = `UPDATE t SET f = f WHERE n <= $1`;
    const [want, got] = [await local.query(upd, [2]), await worker.query(upd, [2])];
    expect(got).toEqual(want);
    const script = `SELECT 1 AS one, 'two'::text AS two; INSERT INTO w VALUES (1), (2); SELECT ARRAY[1,2]::int8[] AS a, '{"a":1}'::jsonb AS j`;
    expect(await worker.exec(script)).toEqual(await local.exec(script));
    expect(await worker.exec(script, { rowMode: "array" })).toEqual(await local.exec(script, { rowMode: "array" }));
  });

  it("rejects with PGlite's DatabaseError and its fields", async () => {
    const catchErr = (p: Promise<unknown>) => p.then(() => expect.unreachable(), (e: unknown) => e);
    const dup = ["z", 1, null, null, null, null, null, null, null, null, null];
    const want = (await catchErr(local.query(INSERT, dup))) as messages.DatabaseError;
    const got = (await catchErr(worker.query(INSERT, dup))) as messages.DatabaseError;
    expect(want).toBeInstanceOf(messages.DatabaseError);
    expect(got).toBeInstanceOf(messages.DatabaseError);
    for (const k of ["message", "name", "length", "severity", "code", "detail", "constraint", "table", "schema", "column", "file", "routine", "where", "position"] as const) {
      expect(got[k], k).toEqual(want[k]);
    }
    expect(got).toMatchObject({ code: "23505", constraint: "t_n_key", table: "t", schema: "public", detail: "Key (n)=(1) already exists." });
    const syntax = (await catchErr(worker.query(`SELEC 1`))) as messages.DatabaseError;
    expect(syntax).toBeInstanceOf(messages.DatabaseError);
    expect(syntax).toMatchObject({ code: "42601", position: "1" });
    const notNull = (await catchErr(worker.exec(`INSERT INTO t (id) VALUES ('nn')`))) as messages.DatabaseError;
    expect(notNull).toBeInstanceOf(messages.DatabaseError);
    expect(notNull).toMatchObject({ code: "23502", column: "n", table: "t" });
    // The session stays usable.
    expect((await worker.query(`SELECT 1 AS one`)).rows).toEqual([{ one: 1 }]);
  });

  it("commits, rolls back on a thrown error, and rolls back through tx.rollback() like the Prisma adapter", async () => {
    await worker.transaction(async (tx) => {
      await tx.query(INSERT, ["tx1", 101, null, null, null, null, null, null, null, null, null]);
      await tx.exec(`UPDATE t SET f = 2 WHERE id = 'tx1'`);
    });
    expect((await worker.query(`SELECT f FROM t WHERE id = 'tx1'`)).rows).toEqual([{ f: 2 }]);

    const boom = new Error("boom");
    await expect(
      worker.transaction(async (tx) => {
        await tx.query(INSERT, ["tx2", 102, null, null, null, null, null, null, null, null, null]);
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect((await worker.query(`SELECT id FROM t WHERE id = 'tx2'`)).rows).toEqual([]);

    // The adapter calls rollback() without awaiting it, then lets the callback return.
    let inner: { closed: boolean } | undefined;
    await worker.transaction(async (tx) => {
      inner = tx;
      await tx.query(INSERT, ["tx3", 103, null, null, null, null, null, null, null, null, null]);
      void tx.rollback();
    });
    expect(inner!.closed).toBe(true);
    expect((await worker.query(`SELECT id FROM t WHERE id = 'tx3'`)).rows).toEqual([]);

    // A statement error inside aborts it; PGlite's error reaches the caller.
    await expect(
      worker.transaction(async (tx) => {
        await tx.query(INSERT, ["tx4", 1, null, null, null, null, null, null, null, null, null]);
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect((await worker.query(`SELECT count(*)::int AS c FROM t WHERE id LIKE 'tx%'`)).rows).toEqual([{ c: 1 }]);
  });

  it("queues outside statements behind an open transaction, as in-process PGlite does", async () => {
    const events: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const begun = new Promise<void>((r) => (started = r));
    const txDone = worker.transaction(async (tx) => {
      await tx.query(`UPDATE t SET f = 99 WHERE id = 'a'`);
      started();
      await held;
      events.push("tx: last statement");
      await tx.query(`UPDATE t SET f = 1.5 WHERE id = 'a'`);
    });
    await begun;
    const outside = worker.query<{ f: number }>(`SELECT f FROM t WHERE id = 'a'`).then((r) => {
      events.push("outside");
      return r.rows[0]!.f;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(events).toEqual([]);
    release();
    await txDone;
    // It waited for the commit and so never saw the intermediate value.
    expect(await outside).toBe(1.5);
    expect(events).toEqual(["tx: last statement", "outside"]);
  });

  it("answers a ping (health) while a transaction holds the database and statements queue behind it", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const begun = new Promise<void>((r) => (started = r));
    const txDone = worker.transaction(async (tx) => {
      await tx.query(`UPDATE t SET f = 99 WHERE id = 'a'`);
      started();
      await held;
    });
    await begun;
    let queuedDone = false;
    const queued = worker.query(`SELECT 1`).then(() => (queuedDone = true));
    // The ping comes back while the transaction is open and the SELECT still waits for it.
    expect(await worker.ping()).toEqual({ openTransactions: 1 });
    expect(queuedDone).toBe(false);
    release();
    await txDone;
    await queued;
    expect(await worker.ping()).toEqual({ openTransactions: 0 });
  });

  it("keeps statements prepared in the worker (named statements in pg_prepared_statements)", async () => {
    const sql = `SELECT count(*)::int AS c FROM t WHERE n >= $1`;
    for (let i = 0; i < 3; i++) await worker.query(sql, [1]);
    const prepared = await worker.query<{ statement: string }>(`SELECT statement FROM pg_prepared_statements WHERE statement = $1`, [sql]);
    expect(prepared.rows).toHaveLength(1);
  });
});

describe("PGlite worker lifecycle", () => {
  it("rejects a statement in flight when the worker dies, and every later call", async () => {
    const client = await PGliteWorkerClient.open("memory://");
    const slow = client.query(`SELECT count(*) FROM generate_series(1, 500000000)`);
    const settled = slow.then(
      () => "resolved",
      (e: Error) => e.message,
    );
    await new Promise((r) => setTimeout(r, 200));
    await client.worker.terminate();
    expect(await settled).toMatch(/PGlite worker exited unexpectedly/);
    await expect(client.query(`SELECT 1`)).rejects.toThrow(/PGlite worker exited unexpectedly/);
    await expect(client.transaction(async () => {})).rejects.toThrow(/PGlite worker exited unexpectedly/);
    await expect(client.ping()).rejects.toThrow(/PGlite worker exited unexpectedly/);
    await client.close(); // does not hang or throw on a dead worker
  });

  it("close persists the data: the same data directory reopens (worker or in process) and reads it back", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "ka-pglite-worker-"));
    const first = await openDatabase({ dataDir: dir, pgliteWorker: true });
    const u = await first.prisma.user.create({ data: { id: "u-persist", email: "persist@x.test", name: "Persisted" } });
    expect(u.name).toBe("Persisted");
    // A unique violation through Prisma is still P2002 (the adapter sees PGlite's DatabaseError).
    await expect(first.prisma.user.create({ data: { id: "u-dup", email: "persist@x.test", name: "Dup" } })).rejects.toMatchObject({ code: "P2002" });
    // An interactive Prisma transaction that throws leaves nothing behind.
    await expect(
      first.prisma.$transaction(async (tx) => {
        await tx.user.create({ data: { id: "u-rolled", email: "rolled@x.test", name: "R" } });
        throw new Error("undo");
      }),
    ).rejects.toThrow("undo");
    await first.close();

    const again = await openDatabase({ dataDir: dir, pgliteWorker: true });
    expect((await again.prisma.user.findUnique({ where: { id: "u-persist" } }))?.name).toBe("Persisted");
    expect(await again.prisma.user.findUnique({ where: { id: "u-rolled" } })).toBeNull();
    await again.prisma.user.update({ where: { id: "u-persist" }, data: { name: "Twice" } });
    await again.close();

    const inProcess = await openDatabase({ dataDir: dir, pgliteWorker: false });
    expect((await inProcess.prisma.user.findUnique({ where: { id: "u-persist" } }))?.name).toBe("Twice");
    await inProcess.close();
  });
});
