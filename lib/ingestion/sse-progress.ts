import "server-only";
import { liveStateStream } from "@/lib/db/live-stream";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { clusterRelayLive } from "./cluster-events";
import { getJobSnapshot, subscribeJobProgress, type JobEvent } from "./progress";

// SSE for GET /v1/knowledges/{kb_id}/files/{file_id}/parse-job/events (SPEC §4, issue 3):
// `event: progress` {stage, percent, message}, then one terminal `event: done`
// {status, chunk_count, page_count, embedding_status, message} or `event: error` {code, message}.
// A client that connects after completion gets the final state at once. Events come from the
// in-process bus, which on a PostgreSQL server also carries the events of jobs that other app
// instances run (LISTEN/NOTIFY, instance-relay.ts). While it is quiet the DB snapshot is polled:
// every 2 s without the relay, every 15 s as a safety net with it. A comment heartbeat is sent
// every 15 s. The stream itself is lib/db/live-stream.ts (shared with the evaluation runs'
// progress). Access checks are the route's job.

export interface ProgressStreamOptions {
  signal?: AbortSignal;
  heartbeatMs?: number;
  pollMs?: number;
}

const STAGE_ORDER = ["queued", "parsing", "chunking", "embedding", "indexing", "success", "failed"];

export function jobProgressStream(db: PrismaClient, fileId: string, opts: ProgressStreamOptions = {}): ReadableStream<Uint8Array> {
  return liveStateStream<JobEvent>({
    subscribe: (listener) => subscribeJobProgress(fileId, listener),
    snapshot: async () => {
      const snap = await getJobSnapshot(db, fileId);
      return snap ? snap.event : { type: "error", code: "FILE_NOT_FOUND", message: "The file does not exist (it may have been deleted)." };
    },
    isTerminal: (e) => e.type !== "progress",
    rank: (e) => (e.type === "progress" ? STAGE_ORDER.indexOf(e.stage) * 1000 + e.percent : Infinity),
    readError: { type: "error", code: "INTERNAL_ERROR", message: "Could not read the parse progress." },
    signal: opts.signal,
    heartbeatMs: opts.heartbeatMs,
    pollMs: opts.pollMs ?? (clusterRelayLive() ? 15_000 : 2_000),
  });
}
