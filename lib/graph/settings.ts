import "server-only";
// The KB's graph setting. Turning the graph off removes the KB's graph (nothing is kept that
// the setting says does not exist); turning it on, or switching the model extractor, rebuilds
// the graph of every indexed file in the background, one file at a time.
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { runGraphStage } from "./stage";

const g = globalThis as unknown as { __kaGraphRebuilds?: Map<string, Promise<void>> };
const rebuilds: Map<string, Promise<void>> = (g.__kaGraphRebuilds ??= new Map());

export async function updateGraphSettings(db: PrismaClient, knowledgeId: string, input: { enabled?: boolean; modelEnabled?: boolean }): Promise<void> {
  const before = await db.knowledge.findUniqueOrThrow({ where: { id: knowledgeId }, select: { graphEnabled: true, graphModelEnabled: true } });
  const enabled = input.enabled ?? before.graphEnabled;
  const modelEnabled = input.modelEnabled ?? before.graphModelEnabled;
  await db.$transaction(async (tx) => {
    await tx.knowledge.update({ where: { id: knowledgeId }, data: { graphEnabled: enabled, graphModelEnabled: modelEnabled } });
    if (!enabled && before.graphEnabled) {
      // Mentions, relations and supports go with their entities (cascades).
      await tx.graphEntity.deleteMany({ where: { knowledgeId } });
      await tx.knowledgeFile.updateMany({ where: { knowledgeId }, data: { graphStatus: "skipped", graphPercent: 0, graphTokens: 0, graphErrorCode: null, graphErrorMessage: null, graphSentenceCount: 0 } });
    }
    if (enabled && (!before.graphEnabled || modelEnabled !== before.graphModelEnabled)) {
      await tx.knowledgeFile.updateMany({ where: { knowledgeId, status: "success" }, data: { graphStatus: "pending", graphPercent: 0, graphUpdatedAt: new Date() } });
    }
  });
  if (enabled && (!before.graphEnabled || modelEnabled !== before.graphModelEnabled)) startRebuild(db, knowledgeId);
}

/**
 * When a rebuild builds each file's graph. `beforeEach` is awaited before every file: the ingestion
 * runner passes its "no file being indexed" wait, so a graph resumed at start-up comes after the
 * files being made searchable, as the runner's own graph stages do. `signal` stops the rebuild
 * (the runner's shutdown); the file being built then goes back to `pending`.
 */
export interface RebuildOptions {
  beforeEach?: () => Promise<void>;
  signal?: AbortSignal;
}

/** Rebuilds the graph of a KB's indexed files in this process; a rebuild already running is followed by one more. */
export function startRebuild(db: PrismaClient, knowledgeId: string, opts: RebuildOptions = {}): Promise<void> {
  const previous = rebuilds.get(knowledgeId) ?? Promise.resolve();
  const run = previous
    .then(async () => {
      const files = await db.knowledgeFile.findMany({ where: { knowledgeId, status: "success", graphStatus: "pending" }, select: { id: true }, orderBy: { createdAt: "asc" } });
      for (const f of files) {
        await opts.beforeEach?.();
        if (opts.signal?.aborted) return;
        await runGraphStage(db, { knowledgeId, fileId: f.id, signal: opts.signal });
      }
    })
    .catch((e: unknown) => {
      if (opts.signal?.aborted) return; // stopped: what was left stays pending for the next start
      console.error(`[graph] rebuild of ${knowledgeId} failed: ${e instanceof Error ? e.message : String(e)}`);
    })
    .finally(() => {
      if (rebuilds.get(knowledgeId) === run) rebuilds.delete(knowledgeId);
    });
  rebuilds.set(knowledgeId, run);
  return run;
}

/** Resolves when the KB's background rebuild (if any) has finished (tests). */
export async function waitForRebuild(knowledgeId: string): Promise<void> {
  await rebuilds.get(knowledgeId);
}

/**
 * Graphs left `pending` by a process that stopped before their turn came (the runner builds one
 * graph at a time, after the file is searchable; a KB-setting rebuild goes file by file): every
 * one at the start of the only process (embedded PGlite), otherwise those not updated since
 * `staleBefore`. They are built again in the background, one file at a time (the KBs one after
 * another, so a restart does not start one graph build per KB at once beside the indexing), and
 * the claim in runGraphStage keeps a graph that another live process reaches too from being built
 * twice. Resolves at once; the returned promise settles when the rebuilds have (drain waits).
 */
export async function resumePendingGraphs(db: PrismaClient, opts: { all: boolean; staleBefore: Date } & RebuildOptions): Promise<{ done: Promise<void> }> {
  const where = {
    status: "success",
    graphStatus: "pending",
    ...(opts.all ? {} : { OR: [{ graphUpdatedAt: null }, { graphUpdatedAt: { lt: opts.staleBefore } }] }),
  };
  const kbs = await db.knowledgeFile.findMany({ where, select: { knowledgeId: true }, distinct: ["knowledgeId"] });
  let done = Promise.resolve();
  for (const k of kbs) done = done.then(() => startRebuild(db, k.knowledgeId, { beforeEach: opts.beforeEach, signal: opts.signal }));
  return { done };
}
