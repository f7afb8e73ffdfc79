import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

// Applies prisma/migrations/<ts>_<name>/migration.sql in order and records each in Prisma's
// own `_prisma_migrations` table with its sha256 checksum, so Prisma tooling sees the database
// as in sync. Prisma's schema engine is a native download that cannot run offline here
// (STACK-NOTES), which is why this small runner exists.
export interface SqlRunner {
  exec(sql: string): Promise<void>;
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
}

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

// Any constant works; it only has to be the same for every app instance sharing the server.
const ADVISORY_LOCK_KEY = 727_001;

export function migrationsDir(): string {
  return path.join(process.cwd(), "prisma", "migrations");
}

export async function listMigrations(dir = migrationsDir()) {
  // Read at run time from the checkout (next start, not a traced standalone bundle): without the
  // ignore comment Turbopack cannot scope `dir` and traces the whole project into the build.
  const entries = await readdir(/* turbopackIgnore: true */ dir, { withFileTypes: true });
  const names = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(/* turbopackIgnore: true */ path.join(/* turbopackIgnore: true */ dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

export async function applyMigrations(db: SqlRunner, dir = migrationsDir()): Promise<string[]> {
  const migrations = await listMigrations(dir);
  await db.query("SELECT pg_advisory_lock($1)", [ADVISORY_LOCK_KEY]);
  try {
    await db.exec(MIGRATIONS_TABLE);
    const done = await db.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Map(done.map((r) => [r.migration_name, r.checksum]));
    const ran: string[] = [];
    for (const m of migrations) {
      const prior = applied.get(m.name);
      if (prior) {
        if (prior !== m.checksum) {
          throw new Error(`Migration ${m.name} was changed after it was applied (checksum mismatch).`);
        }
        continue;
      }
      // Each migration and its record commit together: a crash leaves it wholly unapplied.
      await db.exec("BEGIN");
      try {
        await db.exec(m.sql);
        await db.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await db.exec("COMMIT");
      } catch (e) {
        await db.exec("ROLLBACK");
        throw new Error(`Migration ${m.name} failed: ${(e as Error).message}`);
      }
      ran.push(m.name);
    }
    return ran;
  } finally {
    await db.query("SELECT pg_advisory_unlock($1)", [ADVISORY_LOCK_KEY]);
  }
}
