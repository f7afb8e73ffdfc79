import "server-only";
import { ensureLocalOwner } from "@/lib/auth/session";
import { drainChatTurns } from "@/lib/assistant/turn-registry";
import { instanceWorkerId } from "@/lib/assistant/turn-owner";
import { recoverInterruptedTurns, startTurnWatch } from "@/lib/assistant/turn-recovery";
import { closeDb, getDb, getRawDb } from "@/lib/db/client";
import { assertSafeToServe, getEnv } from "@/lib/env";
import { InstanceRelay, livenessName } from "@/lib/ingestion/instance-relay";
import { sweepOrphanOriginals } from "@/lib/ingestion/orphan-sweep";
import { seedSampleKnowledge } from "@/lib/ingestion/sample";
import { kickRunner, startIngestionRunner, stopIngestionRunner } from "@/lib/ingestion/runner";
import { cleanupTempFiles, closeStorage, getStorage } from "@/lib/ingestion/storage";
import { closeRetrievalRuntime, getRetrievalRuntime } from "@/lib/retrieval/runtime";
import { loadTokenizer } from "@/lib/retrieval/text/tokenize";
import { installPeerAddressStamp } from "./peer-address";

// The composition root of the server process: configuration, database (migrations applied),
// storage of the originals (checked, orphans swept), retrieval providers (validated at start,
// SPEC §8), the first-start sample KB, the relay to other instances (PostgreSQL server) and the
// in-process ingestion runner. A bad configuration stops the process with a clear message.
// SIGTERM/SIGINT stop gracefully (see shutdown below).
const g = globalThis as unknown as { __kaBooted?: Promise<void> };

export function bootServer(): Promise<void> {
  g.__kaBooted ??= boot();
  return g.__kaBooted;
}

async function boot(): Promise<void> {
  // First, so no request is read without its peer address (sign-in limits, TRUSTED_PROXIES).
  installPeerAddressStamp();
  let env;
  let relay: InstanceRelay | null = null;
  let stopTurnWatch = () => {};
  try {
    env = getEnv();
    assertSafeToServe(env);
    const storage = await getStorage();
    await storage.check();
    const db = await getDb();
    // Temp files of uploads cut short by a crash were never acknowledged. The embedded database
    // admits one process per data directory, so every temp file there is a dead process's; with a
    // PostgreSQL server other instances may share the files directory, so only old ones go.
    const swept = await cleanupTempFiles(env.DATA_DIR, env.DATABASE_URL ? 60 * 60 * 1000 : 0);
    if (swept > 0) console.log(`[knowledge-assistant] removed ${swept} temp file(s) of interrupted uploads`);
    // Answers cut off by a crash are marked interrupted and their conversations freed at once.
    const recovered = await recoverInterruptedTurns(await getRawDb(), { embedded: !env.DATABASE_URL });
    if (recovered > 0) console.log(`[knowledge-assistant] ${recovered} answer(s) interrupted by the last stop marked as such`);
    const retrieval = await getRetrievalRuntime();
    // Every provider's health() once at start, in the background: an unreachable source is
    // logged and shown by GET /v1/external-sources, it does not block or fail the start.
    void retrieval.status({ refresh: true }).catch(() => undefined);
    // The word dictionaries (~100–180 ms to build) are loaded before the first question needs them.
    loadTokenizer();
    // On a PostgreSQL server other instances may run: their progress and queued jobs come over
    // LISTEN/NOTIFY, and this worker's liveness is its relay connection.
    const workerId = env.DATABASE_URL ? instanceWorkerId() : undefined;
    if (env.DATABASE_URL && workerId) {
      relay = new InstanceRelay({ databaseUrl: env.DATABASE_URL, instanceId: workerId, onJobsQueued: () => kickRunner() });
      await relay.start();
      // Turns of an instance that was killed mid-answer end here within seconds.
      stopTurnWatch = startTurnWatch(await getRawDb(), livenessName);
    }
    if (env.AUTH_MODE === "local") {
      const owner = await ensureLocalOwner();
      if (env.SEED_SAMPLE) await seedSampleKnowledge(db, { ownerId: owner.id });
    }
    await startIngestionRunner({ db, workerId, liveness: relay ? { name: livenessName } : undefined });
    // In the background: listing a large bucket must not delay serving.
    void sweepOrphanOriginals(db, storage, { olderThanMs: env.STORAGE_ORPHAN_GRACE_S * 1000 }).catch((e) =>
      console.error(`[storage] orphan sweep failed: ${(e as Error).message}`),
    );
  } catch (e) {
    console.error(`\n[knowledge-assistant] cannot start: ${(e as Error).message}\n`);
    process.exit(1);
  }
  // Graceful stop (issue 24): stop taking jobs and release the claimed ones at once (requeued,
  // announced, so another instance takes them), refuse new chat turns and let running ones
  // finish within SHUTDOWN_GRACE_MS (then they end with SERVER_STOPPING, saved as aborted),
  // then close. scripts/start.sh sets NEXT_MANUAL_SIG_HANDLE so Next's own handler does not
  // exit the process first.
  const graceMs = env.SHUTDOWN_GRACE_MS;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`[knowledge-assistant] ${signal}: shutting down (chat streams get ${graceMs} ms)`);
    try {
      stopTurnWatch();
      const [, turns] = await Promise.all([stopIngestionRunner(0), drainChatTurns(graceMs)]);
      if (turns.aborted) console.log(`[knowledge-assistant] ${turns.aborted} chat stream(s) cut at shutdown (saved as aborted)`);
      await relay?.close();
      await closeRetrievalRuntime();
      await closeDb();
      closeStorage();
    } catch (e) {
      console.error(`[knowledge-assistant] error while shutting down: ${(e as Error).message}`);
    } finally {
      process.exit(0);
    }
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}
