import "server-only";
import diagnostics from "node:diagnostics_channel";
import { existsSync } from "node:fs";
import { instanceWorkerId } from "@/lib/assistant/turn-owner";
import { recoverInterruptedTurns, startTurnWatch } from "@/lib/assistant/turn-recovery";
import { closeDb, getDb, getRawDb } from "@/lib/db/client";
import { assertSafeToServe, getEnv } from "@/lib/env";
import type { InstanceRelay } from "@/lib/ingestion/instance-relay";
import { sampleMarkerPath } from "@/lib/ingestion/sample-marker";
import { cleanupTempFiles, closeStorage, getStorage } from "@/lib/ingestion/storage";
import { failInterruptedRuns } from "@/lib/retrieval/evaluation/recovery";
import { installPeerAddressStamp } from "./peer-address";

// The composition root of the server process: configuration, database (migrations applied),
// storage of the originals (checked, orphans swept), retrieval providers (validated at start,
// SPEC §8), the first-start sample KB, the relay to other instances (PostgreSQL server) and the
// in-process ingestion runner. A bad configuration stops the process with a clear message.
// SIGTERM/SIGINT stop gracefully (see shutdown below).
//
// Two phases (issue 22, "the second start answers in < 5 s"): what a request cannot do without
// is awaited before the server answers (configuration, storage, the database open with its
// migrations, and the two sweeps that must not race this process's own new uploads and chat
// turns); everything else starts right after, in the background (retrieval providers, word
// dictionaries, the instance relay, the local owner and sample KB, the ingestion runner and its
// recovery, the orphan sweep), and its modules are loaded only then. The embedded database
// opens in its worker thread while this thread loads modules. A failure in the background
// still stops the process with the same message.
const g = globalThis as unknown as { __kaBooted?: Promise<void>; __kaBackground?: Promise<void> };

export function bootServer(): Promise<void> {
  g.__kaBooted ??= boot();
  return g.__kaBooted;
}

/** Resolves when the background part of the start is done (tests, benchmarks). */
export function backgroundStartDone(): Promise<void> {
  return g.__kaBackground ?? Promise.resolve();
}

function cannotStart(e: unknown): never {
  console.error(`\n[knowledge-assistant] cannot start: ${(e as Error).message}\n`);
  process.exit(1);
}

const since = (t0: number) => Math.round(performance.now() - t0);

async function boot(): Promise<void> {
  // First, so no request is read without its peer address (sign-in limits, TRUSTED_PROXIES).
  installPeerAddressStamp();
  const t0 = performance.now();
  let env;
  const relayRef: { current: InstanceRelay | null } = { current: null };
  try {
    env = getEnv();
    assertSafeToServe(env);
    // Opening starts now (the PGlite worker thread reads the data directory, compiles WASM and
    // checks migrations) while the storage check runs here.
    const dbReady = getDb();
    dbReady.catch(() => {}); // awaited below; an early rejection must not go unhandled meanwhile
    const storage = await getStorage();
    await storage.check();
    await dbReady;
    const dbMs = since(t0);
    // Temp files of uploads cut short by a crash were never acknowledged. The embedded database
    // admits one process per data directory, so every temp file there is a dead process's; with a
    // PostgreSQL server other instances may share the files directory, so only old ones go.
    // Before serving: a new upload of this process must not lose its temp file to the sweep.
    const swept = await cleanupTempFiles(env.DATA_DIR, env.DATABASE_URL ? 60 * 60 * 1000 : 0);
    if (swept > 0) console.log(`[knowledge-assistant] removed ${swept} temp file(s) of interrupted uploads`);
    // Answers cut off by a crash are marked interrupted and their conversations freed at once;
    // before serving, so a turn started by this process is never taken for a dead one.
    const recovered = await recoverInterruptedTurns(await getRawDb(), { embedded: !env.DATABASE_URL });
    if (recovered > 0) console.log(`[knowledge-assistant] ${recovered} answer(s) interrupted by the last stop marked as such`);
    // KB evaluation runs (issue 21) a dead process left running are marked failed, before serving
    // for the same reason as the turns above; the runner itself starts in the background.
    const evalFailed = await failInterruptedRuns(await getRawDb(), { embedded: !env.DATABASE_URL });
    if (evalFailed > 0) console.log(`[knowledge-assistant] ${evalFailed} evaluation run(s) interrupted by the last stop marked failed`);
    // The very first start: the sample KB is there on the first page (a later start skips it).
    if (env.AUTH_MODE === "local" && env.SEED_SAMPLE && !existsSync(sampleMarkerPath(env.DATA_DIR))) await seedLocalOwner();
    console.log(`[knowledge-assistant] serving after ${since(t0)} ms (database open ${dbMs} ms); the rest starts in the background`);
  } catch (e) {
    cannotStart(e);
  }
  const startedEnv = env;
  g.__kaBackground = afterFirstResponse(BACKGROUND_LATEST_MS).then(() => startBackground(startedEnv, relayRef, t0)).catch(cannotStart);
  installShutdown(startedEnv, relayRef);
}

/**
 * The background part waits for the first answered request (Node's public
 * `http.server.response.finish` channel), or BACKGROUND_LATEST_MS without one. Its module
 * loading and recovery run on the same main thread as the first request's route module: started
 * at once, they interleaved with it and the first answer came only when both were done
 * (`next start`, load 23: serving after 5.7 s, first answer after 21.7 s).
 */
const BACKGROUND_LATEST_MS = 10_000;

/** Stops the dead-instance turn watch (PostgreSQL server mode), set once the relay is up. */
let stopTurnWatch = () => {};

function afterFirstResponse(latestMs: number): Promise<void> {
  return new Promise((resolve) => {
    const channel = "http.server.response.finish";
    const done = () => {
      clearTimeout(timer);
      diagnostics.unsubscribe(channel, done);
      resolve();
    };
    const timer = setTimeout(done, latestMs);
    timer.unref?.();
    diagnostics.subscribe(channel, done);
  });
}

async function startBackground(env: ReturnType<typeof getEnv>, relayRef: { current: InstanceRelay | null }, t0: number): Promise<void> {
  const [{ InstanceRelay, livenessName }, { sweepOrphanOriginals }, { kickRunner, startIngestionRunner }, { getRetrievalRuntime }, { loadTokenizer }] =
    await Promise.all([
      import("@/lib/ingestion/instance-relay"),
      import("@/lib/ingestion/orphan-sweep"),
      import("@/lib/ingestion/runner"),
      import("@/lib/retrieval/runtime"),
      import("@/lib/retrieval/text/tokenize"),
    ]);
  const db = await getDb();
  const storage = await getStorage();
  const retrieval = await getRetrievalRuntime();
  // Every provider's health() once at start, in the background: an unreachable source is
  // logged and shown by GET /v1/external-sources, it does not block or fail the start.
  void retrieval.status({ refresh: true }).catch(() => undefined);
  // The word dictionaries (~100–180 ms to build) are loaded before the first question needs them.
  loadTokenizer();
  // On a PostgreSQL server other instances may run: their progress and queued jobs come over
  // LISTEN/NOTIFY, and this worker's liveness is its relay connection.
  // The same boot id as this process's turn owners, so other instances can tell its turns' liveness.
  const workerId = env.DATABASE_URL ? instanceWorkerId() : undefined;
  if (env.DATABASE_URL && workerId) {
    relayRef.current = new InstanceRelay({ databaseUrl: env.DATABASE_URL, instanceId: workerId, onJobsQueued: () => kickRunner() });
    await relayRef.current.start();
    // Turns of an instance that was killed mid-answer end here within seconds.
    stopTurnWatch = startTurnWatch(await getRawDb(), livenessName);
  }
  if (env.AUTH_MODE === "local") await seedLocalOwner();
  await startIngestionRunner({ db, workerId, liveness: relayRef.current ? { name: livenessName } : undefined });
  const { startEvaluationRunner } = await import("@/lib/retrieval/evaluation/runner");
  await startEvaluationRunner({ embedded: !env.DATABASE_URL, recovered: true });
  // Heading runs of files indexed before migration 20261211000000 (none after the first start
  // that follows it); in the background, one file per short transaction.
  void import("@/lib/retrieval/heading-runs-backfill")
    .then(({ backfillHeadingRuns }) => backfillHeadingRuns(db))
    .then((n) => n > 0 && console.log(`[knowledge-assistant] heading runs computed for ${n} file(s) indexed before them`))
    .catch((e) => console.error(`[retrieval] heading runs backfill failed: ${(e as Error).message}`));
  // In the background: listing a large bucket must not delay serving.
  void sweepOrphanOriginals(db, storage, { olderThanMs: env.STORAGE_ORPHAN_GRACE_S * 1000 }).catch((e) =>
    console.error(`[storage] orphan sweep failed: ${(e as Error).message}`),
  );
  console.log(`[knowledge-assistant] background start-up done after ${since(t0)} ms`);
}

/** Local mode: the owner's row, and on the first start the sample KB (seeded once, see sample.ts). */
async function seedLocalOwner(): Promise<void> {
  const [{ ensureLocalOwner }, { seedSampleKnowledge }] = await Promise.all([import("@/lib/auth/session"), import("@/lib/ingestion/sample")]);
  const owner = await ensureLocalOwner();
  if (getEnv().SEED_SAMPLE) await seedSampleKnowledge(await getDb(), { ownerId: owner.id });
}

function installShutdown(env: ReturnType<typeof getEnv>, relayRef: { current: InstanceRelay | null }): void {
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
      const [{ stopIngestionRunner }, { drainChatTurns }, { closeRetrievalRuntime }, { stopEvaluationRunner }] = await Promise.all([
        import("@/lib/ingestion/runner"),
        import("@/lib/assistant/turn-registry"),
        import("@/lib/retrieval/runtime"),
        import("@/lib/retrieval/evaluation/runner"),
      ]);
      stopEvaluationRunner();
      stopTurnWatch();
      const [, turns] = await Promise.all([stopIngestionRunner(0), drainChatTurns(graceMs)]);
      if (turns.aborted) console.log(`[knowledge-assistant] ${turns.aborted} chat stream(s) cut at shutdown (saved as aborted)`);
      await relayRef.current?.close();
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
