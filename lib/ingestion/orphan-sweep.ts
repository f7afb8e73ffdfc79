import "server-only";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { describeError } from "./parsers/common";
import type { OriginalStorage, StoredOriginal } from "./storage";

// Crash safety of originals (issue 24): an upload commits the original before its row, so a
// crash (or a lost reply) between the two leaves an original no row refers to. Run at start,
// the sweep deletes those once they are older than the grace period (another instance may be
// between the two steps of an upload right now).

const BATCH = 500;

export interface SweepResult {
  checked: number;
  removed: number;
}

export async function sweepOrphanOriginals(db: PrismaClient, storage: OriginalStorage, opts: { olderThanMs: number }): Promise<SweepResult> {
  const cutoff = Date.now() - opts.olderThanMs;
  let checked = 0;
  let removed = 0;
  let batch: StoredOriginal[] = [];
  const flush = async () => {
    const keys = batch.map((o) => o.key);
    batch = [];
    // A key is "<kb_id>/<file id>": look the rows up by primary key, then compare the keys.
    const ids = keys.map((k) => k.split("/")[1]!);
    const rows = await db.knowledgeFile.findMany({ where: { id: { in: ids } }, select: { storageKey: true } });
    const known = new Set(rows.map((r) => r.storageKey));
    for (const key of keys) {
      if (known.has(key)) continue;
      try {
        await storage.delete(key);
        removed++;
      } catch (e) {
        console.error(`[storage] could not remove orphaned original ${key}: ${describeError(e)}`);
      }
    }
  };
  for await (const o of storage.list()) {
    checked++;
    if (o.modifiedAt.getTime() > cutoff) continue;
    batch.push(o);
    if (batch.length >= BATCH) await flush();
  }
  if (batch.length) await flush();
  if (removed) console.log(`[storage] removed ${removed} original(s) without a file row`);
  return { checked, removed };
}
