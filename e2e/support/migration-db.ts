import { cpSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "@/lib/db/pglite-extensions.mjs";
import pg from "pg";
import { migrationsDir, type SqlRunner } from "@/lib/db/migrate";
import { freshDatabase } from "./test-env";

// Migration tests: an empty database to apply a chosen prefix of the migrations to, and that prefix.

/** A fresh, empty database: a new one on the PostgreSQL server of TEST_DATABASE_URL, else in-memory PGlite. */
export async function openMigrationRunner(): Promise<{ db: SqlRunner; close: () => Promise<void> }> {
  if (process.env.TEST_DATABASE_URL) {
    const client = new pg.Client({ connectionString: await freshDatabase(process.env.TEST_DATABASE_URL, { empty: true }) });
    await client.connect();
    return {
      db: { exec: async (sql) => void (await client.query(sql)), query: async <T,>(sql: string, params?: unknown[]) => (await client.query(sql, params as unknown[])).rows as T[] },
      close: () => client.end(),
    };
  }
  const client = await PGlite.create("memory://", { extensions: PGLITE_EXTENSIONS });
  return {
    db: { exec: async (sql) => void (await client.exec(sql)), query: async <T,>(sql: string, params?: unknown[]) => (await client.query<T>(sql, params)).rows },
    close: () => client.close(),
  };
}

/** A temp directory with the repository's migrations that `keep` selects (a database deployed before the others). */
export function migrationsUpTo(keep: (name: string) => boolean): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ka-mig-"));
  for (const m of readdirSync(migrationsDir()).filter((n) => /^\d/.test(n) && keep(n))) cpSync(path.join(migrationsDir(), m), path.join(dir, m), { recursive: true });
  return dir;
}

/**
 * The index writer's raw-SQL interface (`$queryRawUnsafe`, `$executeRawUnsafe` returning the rows
 * affected) over a migration runner's connection, for the lib functions a migration test calls.
 */
export function rawSqlOver(db: SqlRunner) {
  return {
    $queryRawUnsafe: async <T,>(sql: string, ...values: unknown[]) => (await db.query(sql, values)) as T,
    $executeRawUnsafe: async (sql: string, ...values: unknown[]) => (await db.query<{ n: number }>(`WITH w AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM w`, values))[0]!.n,
  };
}
