// The PostgreSQL server's two connection pools (lib/db/client.ts): the chat's raw SQL and
// Prisma's, each bounded by DATABASE_POOL_MAX (Prisma's plus INGEST_CONCURRENCY), named in
// pg_stat_activity. Runs only when TEST_DATABASE_URL points at a server (CI's PostgreSQL pass).
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, getDb, getRawDb } from "@/lib/db/client";
import { resetEnvForTests } from "@/lib/env";
import { freshDatabase } from "../../support/test-env";

const serverUrl = process.env.TEST_DATABASE_URL;
const saved = { ...process.env };

afterAll(async () => {
  await closeDb();
  for (const k of ["DATABASE_URL", "DATABASE_POOL_MAX", "INGEST_CONCURRENCY"]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  resetEnvForTests();
});

describe.skipIf(!serverUrl)("PostgreSQL connection pools", () => {
  it("open at most DATABASE_POOL_MAX connections for raw SQL and that plus INGEST_CONCURRENCY for Prisma", async () => {
    const url = await freshDatabase(serverUrl!);
    process.env.DATABASE_URL = url;
    process.env.DATABASE_POOL_MAX = "2";
    process.env.INGEST_CONCURRENCY = "1";
    resetEnvForTests();
    await closeDb();
    const [raw, db] = await Promise.all([getRawDb(), getDb()]);

    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    const seen = new Map<string, number>();
    let running = true;
    const watch = (async () => {
      while (running) {
        const { rows } = await watcher.query<{ app: string; n: number }>(
          `SELECT application_name AS app, count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND application_name LIKE 'knowledge-assistant/%' GROUP BY 1`,
        );
        for (const r of rows) seen.set(r.app, Math.max(seen.get(r.app) ?? 0, r.n));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      // Eight statements at once on each pool: each holds its connection for 300 ms, so every
      // connection a pool is allowed to open is opened, and the rest wait in its queue.
      const sleep = `SELECT 1 AS one FROM pg_sleep(0.3)`;
      const results = await Promise.all([
        ...Array.from({ length: 8 }, () => raw.$queryRawUnsafe<{ one: number }[]>(sleep)),
        ...Array.from({ length: 8 }, () => db.$queryRawUnsafe<{ one: number }[]>(sleep)),
      ]);
      expect(results.every((r) => r[0]?.one === 1)).toBe(true);
    } finally {
      running = false;
      await watch;
      await watcher.end();
    }
    expect(Object.fromEntries(seen)).toEqual({ "knowledge-assistant/raw": 2, "knowledge-assistant/prisma": 3 });
  });
});
