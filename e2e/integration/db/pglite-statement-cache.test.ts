// The PGlite statement cache behind the Prisma adapter: same results as PGlite's own query(),
// statements really prepared once, errors that leave the cache usable, transactions, eviction,
// and a schema change under a cached statement.
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PGliteStatementCache } from "@/lib/db/pglite-statement-cache";

describe("PGliteStatementCache", () => {
  let pg: PGlite;
  let cache: PGliteStatementCache;

  beforeAll(async () => {
    pg = await PGlite.create("memory://");
    await pg.exec(`CREATE TABLE t (id text PRIMARY KEY, n int NOT NULL, tags text[], at timestamptz, doc jsonb, big bigint)`);
    cache = new PGliteStatementCache(pg, 4);
  });
  afterAll(() => pg.close());

  const prepared = async () =>
    (await pg.query<{ name: string }>(`SELECT name FROM pg_prepared_statements ORDER BY name`)).rows.map((r) => r.name);

  it("returns what PGlite's own query returns, for every parameter and column type used here", async () => {
    const at = new Date("2026-12-02T10:00:00.000Z");
    const insert = `INSERT INTO t (id, n, tags, at, doc, big) VALUES ($1, $2, $3, $4, $5, $6)`;
    await cache.query(insert, ["a", 1, ["x", "y"], at, JSON.stringify({ k: [1, 2] }), 9007199254740993n]);
    await cache.query(insert, ["b", 2, null, null, null, null]);
    const sql = `SELECT id, n, tags, at, doc, big FROM t WHERE n = ANY($1::int[]) ORDER BY id`;
    const plain = await pg.query(sql, [[1, 2]]);
    const cached = await cache.query(sql, [[1, 2]]);
    expect(cached.rows).toEqual(plain.rows);
    expect(cached.fields).toEqual(plain.fields);
    expect(cached.rows[0]).toMatchObject({ id: "a", tags: ["x", "y"], at, doc: { k: [1, 2] } });
    const arrays = await cache.query(sql, [[1]], { rowMode: "array" });
    expect(arrays.rows).toEqual((await pg.query(sql, [[1]], { rowMode: "array" })).rows);
  });

  it("prepares a statement once and then reuses it", async () => {
    const before = { ...cache.stats };
    const sql = `SELECT count(*)::int AS c FROM t WHERE n >= $1`;
    for (let i = 0; i < 5; i++) expect((await cache.query<{ c: number }>(sql, [1])).rows[0]!.c).toBe(2);
    expect(cache.stats.prepared - before.prepared).toBe(1);
    expect(cache.stats.hits - before.hits).toBe(4);
    expect(await prepared()).toHaveLength(Math.min(cache.stats.prepared, 4));
  });

  it("the same text with other explicit parameter types is another statement", async () => {
    const sql = `SELECT $1 AS v`;
    expect((await cache.query<{ v: unknown }>(sql, [7], { paramTypes: [23] })).rows).toEqual([{ v: 7 }]);
    expect((await cache.query<{ v: unknown }>(sql, ["7"], { paramTypes: [25] })).rows).toEqual([{ v: "7" }]);
  });

  it("keeps at most `max` statements, closing the least recently used", async () => {
    for (let i = 0; i < 8; i++) await cache.query(`SELECT $1::int + ${i} AS v`, [i]);
    const names = await prepared();
    expect(names).toHaveLength(4);
    expect(cache.stats.evicted).toBeGreaterThan(0);
    expect(names.every((n) => n.startsWith("ka_stmt_"))).toBe(true);
  });

  it("a syntax error is not cached and the next query works", async () => {
    const before = cache.stats.prepared;
    await expect(cache.query(`SELEC 1`)).rejects.toThrow(/syntax error/);
    expect(cache.stats.prepared).toBe(before);
    expect((await cache.query<{ v: number }>(`SELECT 1 AS v`)).rows).toEqual([{ v: 1 }]);
  });

  it("an error while running keeps the statement and the session usable", async () => {
    const insert = `INSERT INTO t (id, n) VALUES ($1, $2)`;
    await cache.query(insert, ["c", 3]);
    await expect(cache.query(insert, ["c", 4])).rejects.toMatchObject({ code: "23505" });
    await cache.query(insert, ["d", 4]);
    expect((await pg.query(`SELECT id FROM t WHERE id IN ('c', 'd') ORDER BY id`)).rows).toEqual([{ id: "c" }, { id: "d" }]);
  });

  it("transactions commit and roll back with cached statements inside", async () => {
    const insert = `INSERT INTO t (id, n) VALUES ($1, $2)`;
    await cache.transaction(async (tx) => {
      await tx.query(insert, ["tx1", 10]);
      await tx.query(insert, ["tx2", 11]);
    });
    await expect(
      cache.transaction(async (tx) => {
        await tx.query(insert, ["tx3", 12]);
        await tx.query(insert, ["tx1", 13]); // duplicate key: the whole transaction goes
      }),
    ).rejects.toMatchObject({ code: "23505" });
    const ids = (await cache.query<{ id: string }>(`SELECT id FROM t WHERE id LIKE 'tx%' ORDER BY id`)).rows.map((r) => r.id);
    expect(ids).toEqual(["tx1", "tx2"]);
    // A query outside waits for the transaction instead of running inside it.
    let inside = false;
    const tx = cache.transaction(async (t) => {
      await t.query(insert, ["tx4", 14]);
      await new Promise((r) => setTimeout(r, 50));
      inside = true;
      await t.rollback();
    });
    const seen = await cache.query<{ c: number }>(`SELECT count(*)::int AS c FROM t WHERE id = 'tx4'`);
    await tx;
    expect(inside).toBe(true);
    expect(seen.rows[0]!.c).toBe(0);
  });

  it("a schema change under a cached statement fails once, then the statement is prepared afresh", async () => {
    await pg.exec(`CREATE TABLE s (a int)`);
    await pg.exec(`INSERT INTO s VALUES (1)`);
    const sql = `SELECT * FROM s`;
    expect((await cache.query(sql)).rows).toEqual([{ a: 1 }]);
    await pg.exec(`ALTER TABLE s ADD COLUMN b int DEFAULT 2`);
    const first = await cache.query(sql).then(
      (r) => r.rows,
      (e: { code?: string }) => e.code,
    );
    // PostgreSQL either re-plans transparently or refuses with 0A000; never stale rows.
    if (typeof first === "string") expect(first).toBe("0A000");
    else expect(first).toEqual([{ a: 1, b: 2 }]);
    expect((await cache.query(sql)).rows).toEqual([{ a: 1, b: 2 }]);
  });
});
