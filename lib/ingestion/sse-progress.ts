import "server-only";
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
// every 15 s. Access checks are the route's job.

export interface ProgressStreamOptions {
  signal?: AbortSignal;
  heartbeatMs?: number;
  pollMs?: number;
}

const encoder = new TextEncoder();
const STAGE_ORDER = ["queued", "parsing", "chunking", "embedding", "indexing", "success", "failed"];

export function formatSse(event: JobEvent): Uint8Array {
  const { type, ...data } = event;
  return encoder.encode(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
}

export function jobProgressStream(db: PrismaClient, fileId: string, opts: ProgressStreamOptions = {}): ReadableStream<Uint8Array> {
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const pollMs = opts.pollMs ?? (clusterRelayLive() ? 15_000 : 2_000);
  let cleanup = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      let lastSentAt = Date.now();
      let lastEventAt = Date.now();
      let lastKey = "";
      let unsubscribe = () => {};
      let heartbeat: NodeJS.Timeout | undefined;
      let poll: NodeJS.Timeout | undefined;
      let polling = false;

      const close = () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        clearInterval(heartbeat);
        clearInterval(poll);
        opts.signal?.removeEventListener("abort", close);
        try {
          controller.close();
        } catch {
          /* already closed or errored */
        }
      };
      cleanup = close;
      let lastProgress = -1;
      const rank = (e: JobEvent) => (e.type === "progress" ? STAGE_ORDER.indexOf(e.stage) * 1000 + e.percent : Infinity);
      /** A polled snapshot may lag behind the bus (progress DB writes are throttled): never step back. */
      const sendPolled = (event: JobEvent) => {
        if (event.type === "progress" && rank(event) < lastProgress) return;
        send(event);
      };
      const send = (event: JobEvent) => {
        if (closed) return;
        if (event.type === "progress") lastProgress = Math.max(lastProgress, rank(event));
        const key = JSON.stringify(event);
        if (key === lastKey) return;
        lastKey = key;
        try {
          controller.enqueue(formatSse(event));
        } catch {
          return close();
        }
        lastSentAt = Date.now();
        if (event.type !== "progress") close();
      };

      if (opts.signal?.aborted) return close();
      opts.signal?.addEventListener("abort", close, { once: true });

      // Subscribe before reading the snapshot so nothing between the two is lost.
      const early: JobEvent[] = [];
      let ready = false;
      unsubscribe = subscribeJobProgress(fileId, (e) => {
        lastEventAt = Date.now();
        if (ready) send(e);
        else early.push(e);
      });

      const snapshotEvent = async (): Promise<JobEvent> => {
        const snap = await getJobSnapshot(db, fileId);
        return snap ? snap.event : { type: "error", code: "FILE_NOT_FOUND", message: "The file does not exist (it may have been deleted)." };
      };

      void snapshotEvent()
        .then((first) => {
          ready = true;
          // A terminal event that arrived meanwhile wins over the (older) snapshot.
          const terminal = early.find((e) => e.type !== "progress");
          send(terminal ?? early[early.length - 1] ?? first);
          if (closed) return;
          heartbeat = setInterval(() => {
            if (closed) return;
            if (Date.now() - lastSentAt >= heartbeatMs - 50) {
              try {
                controller.enqueue(encoder.encode(`: heartbeat\n\n`));
                lastSentAt = Date.now();
              } catch {
                close();
              }
            }
          }, Math.max(250, Math.min(heartbeatMs, 5_000)));
          poll = setInterval(() => {
            if (closed || polling || Date.now() - lastEventAt < pollMs) return;
            polling = true;
            snapshotEvent()
              .then(sendPolled)
              .catch(() => {})
              .finally(() => {
                polling = false;
              });
          }, pollMs);
        })
        .catch(() => {
          send({ type: "error", code: "INTERNAL_ERROR", message: "Could not read the parse progress." });
        });
    },
    cancel() {
      cleanup();
    },
  });
}
