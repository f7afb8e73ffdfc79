// Statement lists in one transaction (lib/db/client.ts runAtomic, issue 22): on embedded PGlite
// in its worker thread the list is ONE message to that thread; elsewhere (PGlite in process, a
// PostgreSQL server) a Prisma transaction runs the same statements. Both commit all or nothing,
// report what each statement did, and roll back when a `requireRows` statement returns no row.
// The index writer's batches use it: one worker request per batch, no BEGIN/COMMIT round trips.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, runAtomic } from "@/lib/db/client";
import { writeFileChunksInBatches, POSTING_ROWS_SQL } from "@/lib/retrieval/index-writer";

type Handle = Awaited<ReturnType<typeof openDatabase>>;

const modes = process.env.TEST_DATABASE_URL ? (["postgres"] as const) : (["worker", "in process"] as const);

describe.each(modes)("runAtomic (%s)", (mode) => {
  let h: Handle;
  let dir: string;
  const table = `atomic_t_${mode.replace(" ", "_")}`;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "ka-atomic-"));
    h = await openDatabase(mode === "postgres" ? { databaseUrl: process.env.TEST_DATABASE_URL } : { dataDir: dir, pgliteWorker: mode === "worker" });
    await h.prisma.$executeRawUnsafe(`DROP TABLE IF EXISTS ${table}`);
    await h.prisma.$executeRawUnsafe(`CREATE TABLE ${table} (id int PRIMARY KEY, tags text[])`);
  });
  afterAll(async () => {
    await h?.prisma.$executeRawUnsafe(`DROP TABLE IF EXISTS ${table}`).catch(() => {});
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = async () => Number((await h.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n);

  it("commits every statement and reports rows returned and affected", async () => {
    const r = await runAtomic(
      h.prisma,
      [
        { sql: `INSERT INTO ${table} (id, tags) SELECT u.id, ARRAY[u.tag] FROM unnest($1::int[], $2::text[]) AS u(id, tag)`, params: [[1, 2, 3], ["a", 'b"q', "c,d"]] },
        { sql: `SELECT id FROM ${table} WHERE id = $1 FOR UPDATE`, params: [2], requireRows: true },
        { sql: `DELETE FROM ${table} WHERE id = ANY($1::int[])`, params: [[3]] },
      ],
      { timeoutMs: 10_000 },
    );
    expect(r.failedAt).toBeNull();
    expect([r.results[0]!.affectedRows, r.results[2]!.affectedRows]).toEqual([3, 1]);
    expect(r.results[1]!.rowCount).toBe(1);
    const rows = await h.prisma.$queryRawUnsafe<{ id: number; tags: string[] }[]>(`SELECT id, tags FROM ${table} ORDER BY id`);
    expect(rows).toEqual([
      { id: 1, tags: ["a"] },
      { id: 2, tags: ['b"q'] },
    ]);
  });

  it("rolls the whole list back when a requireRows statement returns no row, and says which", async () => {
    const before = await count();
    const r = await runAtomic(
      h.prisma,
      [
        { sql: `INSERT INTO ${table} (id) VALUES ($1)`, params: [10] },
        { sql: `SELECT id FROM ${table} WHERE id = $1`, params: [999], requireRows: true },
        { sql: `INSERT INTO ${table} (id) VALUES ($1)`, params: [11] },
      ],
      { timeoutMs: 10_000 },
    );
    expect(r).toEqual({ failedAt: 1, results: [] });
    expect(await count()).toBe(before);
  });

  it("rolls back and rejects with the database's error when a statement fails", async () => {
    const before = await count();
    await expect(
      runAtomic(
        h.prisma,
        [
          { sql: `INSERT INTO ${table} (id) VALUES ($1)`, params: [20] },
          { sql: `INSERT INTO ${table} (id) VALUES ($1)`, params: [20] },
        ],
        { timeoutMs: 10_000 },
      ),
    ).rejects.toThrow(/duplicate key|unique/i);
    expect(await count()).toBe(before);
    // The database is usable afterwards (the transaction is closed).
    await runAtomic(h.prisma, [{ sql: `INSERT INTO ${table} (id) VALUES ($1)`, params: [21] }], { timeoutMs: 10_000 });
    expect(await count()).toBe(before + 1);
  });
});

describe.skipIf(!!process.env.TEST_DATABASE_URL)("indexing batches on embedded PGlite", () => {
  it("each batch is one message to the worker thread: no BEGIN, statement or COMMIT round trips", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "ka-atomic-batches-"));
    const h = await openDatabase({ dataDir: dir, pgliteWorker: true });
    try {
      const db = h.prisma;
      const user = await db.user.create({ data: { id: "u-atomic", email: "atomic@example.test", name: "A" } });
      const kb = await db.knowledge.create({ data: { id: "kb-atomic", name: "kb", ownerId: user.id } });
      const file = await db.knowledgeFile.create({
        data: { id: "f-atomic", knowledgeId: kb.id, name: "f.md", fileType: "md", mimeType: "text/markdown", size: 1n, sha256: "0".repeat(64), storageKey: "k", status: "indexing" },
      });
      const job = await db.ingestionJob.create({
        data: { id: "j-atomic", fileId: file.id, knowledgeId: kb.id, status: "running", stage: "indexing", lockedBy: "w1", lockedAt: new Date() },
      });

      // Every message the main thread sends to the worker while the batches run.
      const worker = h.pgliteWorker as (Worker & { postMessage: (m: { op: string }) => void }) | undefined;
      if (!worker) throw new Error("no PGlite worker behind this handle");
      const ops: string[] = [];
      const post = worker.postMessage.bind(worker);
      worker.postMessage = (m: { op: string }) => {
        ops.push(m.op);
        post(m);
      };
      const chunks = Array.from({ length: 300 }, (_, i) => ({ ordinal: i, content: `passage ${i} about retrieval and parsing`, pageStart: null, pageEnd: null, headingPath: "" }));
      const batches: string[] = [];
      const args = {
        knowledgeId: kb.id,
        fileId: file.id,
        chunks,
        owner: { jobId: job.id, lockedBy: "w1" },
        batchMs: 60,
        afterBatch: (info: { phase: string }) => void batches.push(info.phase),
      };
      expect(await writeFileChunksInBatches(db, args)).toBe(300);
      // Again over the existing chunks: delete batches first, then inserts.
      expect(await writeFileChunksInBatches(db, args)).toBe(300);
      worker.postMessage = post;

      const atomicOps = ops.filter((o) => o === "atomic").length;
      // One atomic message per batch, plus the empty delete probe that ends each delete phase.
      expect(atomicOps).toBe(batches.length + 2);
      expect(batches).toContain("delete");
      expect(ops).not.toContain("begin");
      expect(ops).not.toContain("end");
      const n = await db.$queryRawUnsafe<{ chunks: number; dup: number; postings: number }[]>(
        `SELECT (SELECT count(*)::int FROM chunks WHERE file_id = $1) AS chunks,
                (SELECT count(*)::int FROM (SELECT ordinal FROM chunks WHERE file_id = $1 GROUP BY ordinal HAVING count(*) > 1) d) AS dup,
                (SELECT count(*)::int FROM ${POSTING_ROWS_SQL} t WHERE file_id = $1) AS postings`,
        file.id,
      );
      expect(n[0]).toMatchObject({ chunks: 300, dup: 0 });
      expect(n[0]!.postings).toBeGreaterThan(300);

      // A batch whose job is no longer this worker's writes nothing.
      await db.ingestionJob.update({ where: { id: job.id }, data: { lockedBy: "w2" } });
      await expect(writeFileChunksInBatches(db, args)).rejects.toThrow(/no longer owns/);
      expect((await db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM chunks WHERE file_id = $1`, file.id))[0]!.n).toBe(300);
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
