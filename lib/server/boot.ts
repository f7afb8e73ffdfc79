import "server-only";
import { ensureLocalOwner } from "@/lib/auth/session";
import { recoverInterruptedTurns } from "@/lib/assistant/turn-recovery";
import { closeDb, getDb, getRawDb } from "@/lib/db/client";
import { assertSafeToServe, getEnv } from "@/lib/env";
import { seedSampleKnowledge } from "@/lib/ingestion/sample";
import { startIngestionRunner, stopIngestionRunner } from "@/lib/ingestion/runner";
import { cleanupTempFiles } from "@/lib/ingestion/storage";
import { closeRetrievalRuntime, getRetrievalRuntime } from "@/lib/retrieval/runtime";
import { loadTokenizer } from "@/lib/retrieval/text/tokenize";
import { installPeerAddressStamp } from "./peer-address";

// The composition root of the server process: configuration, database (migrations applied),
// retrieval providers (validated at start, SPEC §8), the first-start sample KB and the
// in-process ingestion runner. A bad configuration stops the process with a clear message.
const g = globalThis as unknown as { __kaBooted?: Promise<void> };

export function bootServer(): Promise<void> {
  g.__kaBooted ??= boot();
  return g.__kaBooted;
}

async function boot(): Promise<void> {
  // First, so no request is read without its peer address (sign-in limits, TRUSTED_PROXIES).
  installPeerAddressStamp();
  let env;
  try {
    env = getEnv();
    assertSafeToServe(env);
    const db = await getDb();
    // Temp files of uploads cut short by a crash were never acknowledged. The embedded database
    // admits one process per data directory, so every temp file there is a dead process's; with a
    // PostgreSQL server other instances may share the files directory, so only old ones go.
    const swept = await cleanupTempFiles(env.DATA_DIR, env.DATABASE_URL ? 60 * 60 * 1000 : 0);
    if (swept > 0) console.log(`[knowledge-assistant] removed ${swept} temp file(s) of interrupted uploads`);
    // Answers cut off by a crash are marked interrupted and their conversations freed at once.
    const recovered = await recoverInterruptedTurns(await getRawDb(), { embedded: !env.DATABASE_URL });
    if (recovered > 0) console.log(`[knowledge-assistant] ${recovered} answer(s) interrupted by the last stop marked as such`);
    await getRetrievalRuntime();
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
