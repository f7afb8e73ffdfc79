import "server-only";
import { ensureLocalOwner } from "@/lib/auth/session";
import { closeDb, getDb } from "@/lib/db/client";
import { assertSafeToServe, getEnv } from "@/lib/env";
import { seedSampleKnowledge } from "@/lib/ingestion/sample";
import { startIngestionRunner, stopIngestionRunner } from "@/lib/ingestion/runner";
import { closeRetrievalRuntime, getRetrievalRuntime } from "@/lib/retrieval/runtime";
import { loadTokenizer } from "@/lib/retrieval/text/tokenize";

// The composition root of the server process: configuration, database (migrations applied),
// retrieval providers (validated at start, SPEC §8), the first-start sample KB and the
// in-process ingestion runner. A bad configuration stops the process with a clear message.
const g = globalThis as unknown as { __kaBooted?: Promise<void> };

export function bootServer(): Promise<void> {
  g.__kaBooted ??= boot();
  return g.__kaBooted;
}

async function boot(): Promise<void> {
  let env;
  try {
    env = getEnv();
    assertSafeToServe(env);
    const db = await getDb();
    const retrieval = getRetrievalRuntime();
    // Every provider's health() once at start, in the background: an unreachable source is
    // logged and shown by GET /v1/external-sources, it does not block or fail the start.
    void retrieval.status({ refresh: true }).catch(() => undefined);
    // The word dictionaries (~100–180 ms to build) are loaded before the first question needs them.
    loadTokenizer();
    if (env.AUTH_MODE === "local") {
      const owner = await ensureLocalOwner();
      if (env.SEED_SAMPLE) await seedSampleKnowledge(db, { ownerId: owner.id });
    }
    await startIngestionRunner({ db });
  } catch (e) {
    console.error(`\n[knowledge-assistant] cannot start: ${(e as Error).message}\n`);
    process.exit(1);
  }
  const shutdown = async (signal: string) => {
    console.log(`[knowledge-assistant] ${signal}: shutting down`);
    try {
      await stopIngestionRunner();
      await closeRetrievalRuntime();
      await closeDb();
    } finally {
      process.exit(0);
    }
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}
