// RawDb (the chat turn's raw SQL without Prisma's client) on every backend: embedded in a
// worker, embedded in process, and a PostgreSQL server when TEST_DATABASE_URL is set. Rows and
// affected counts must be what the app's code reads from Prisma's raw API.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase, type OpenOptions } from "@/lib/db/client";

const backends: [string, () => OpenOptions][] = [
  ["PGlite in a worker", () => ({ dataDir: mkdtempSync(path.join(tmpdir(), "ka-raw-")), pgliteWorker: true })],
  ["PGlite in process", () => ({ dataDir: mkdtempSync(path.join(tmpdir(), "ka-raw-")), pgliteWorker: false })],
];
if (process.env.TEST_DATABASE_URL) backends.push(["PostgreSQL", () => ({ databaseUrl: process.env.TEST_DATABASE_URL })]);

describe.each(backends)("RawDb on %s", (_name, options) => {
  it("reads the rows and counts the writes that Prisma's raw API does", async () => {
    const h = await openDatabase(options());
    try {
      const id = `raw-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
      const insert = `INSERT INTO users (id, email, name) VALUES ($1, $2, $3)`;
      expect(await h.raw.$executeRawUnsafe(insert, id, `${id}@x.test`, "Raw")).toBe(1);
      expect(await h.raw.$executeRawUnsafe(`UPDATE users SET name = $2 WHERE id = $1`, "no-such-user", "x")).toBe(0);
      const sql = `SELECT id, name, created_at, count(*) OVER () AS n FROM users WHERE id = $1`;
      const raw = await h.raw.$queryRawUnsafe<{ id: string; name: string; created_at: Date; n: bigint | number | string }[]>(sql, id);
      const viaPrisma = await h.prisma.$queryRawUnsafe<{ id: string; name: string; created_at: Date; n: bigint | number }[]>(sql, id);
      expect(raw).toHaveLength(1);
      expect(raw[0]).toMatchObject({ id, name: "Raw" });
      expect(new Date(raw[0]!.created_at).getTime()).toBe(new Date(viaPrisma[0]!.created_at).getTime());
      // int8 comes back as bigint or string depending on the driver; the app always reads Number().
      expect(Number(raw[0]!.n)).toBe(Number(viaPrisma[0]!.n));
      // A constraint violation rejects (the caller's error path), and the connection stays usable.
      await expect(h.raw.$executeRawUnsafe(insert, id, `${id}@x.test`, "Dup")).rejects.toMatchObject({ code: "23505" });
      expect(await h.raw.$queryRawUnsafe<{ one: number }[]>(`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
    } finally {
      await h.close();
    }
  });
});
