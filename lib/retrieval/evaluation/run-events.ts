import "server-only";
// Live progress of evaluation runs (issue 21) on the shared live bus (lib/db/live-events.ts):
// the runner publishes the claim, each stored batch and the end; cancelling a queued run and
// deleting a run publish their end too. On a PostgreSQL server the instance relay carries the
// events to the other instances, so a browser connected to any of them sees a run that another
// instance executes. GET …/runs/{run_id}/events (store.ts runEventStream) streams them.
import { publishLiveEvent, subscribeLiveEvents, type LiveEvent } from "@/lib/db/live-events";
import { defaultMessage } from "@/lib/errors";
import type { RunEndStatus, RunEvent, RunMetrics, RunSummary } from "./wire-types";

const TOPIC = "evaluation-run";

export function publishRunEvent(runId: string, event: RunEvent): void {
  publishLiveEvent(TOPIC, runId, event as unknown as LiveEvent);
}

export function subscribeRunEvents(runId: string, listener: (event: RunEvent) => void): () => void {
  return subscribeLiveEvents(TOPIC, runId, (e) => listener(e as unknown as RunEvent));
}

export const isTerminalRunEvent = (e: RunEvent) => e.type !== "progress";

/** Queued before running, then questions done: a state never goes back. */
export const runEventRank = (e: RunEvent) => (e.type === "progress" ? (e.status === "running" ? 1 : 0) * 1e9 + e.done : Infinity);

export function progressEvent(runId: string, status: "queued" | "running", done: number, total: number): RunEvent {
  return { type: "progress", run_id: runId, status, done, total };
}

export function endEvent(
  runId: string,
  status: RunEndStatus,
  r: { done: number; total: number; metrics: RunMetrics | null; error_message: string | null; finished_at: string | null },
): RunEvent {
  const data = { run_id: runId, done: r.done, total: r.total, metrics: r.metrics, error_message: r.error_message, finished_at: r.finished_at };
  if (status === "succeeded") return { type: "succeeded", status, ...data };
  if (status === "failed") return { type: "failed", status, ...data };
  return { type: "cancelled", status, ...data };
}

/** The event that describes a run's state (what a client connecting now receives first). */
export function runStateEvent(run: RunSummary): RunEvent {
  if (run.status === "queued" || run.status === "running") return progressEvent(run.id, run.status, run.done, run.total);
  return endEvent(run.id, run.status, run);
}

export function goneEvent(): RunEvent {
  return { type: "error", code: "EVALUATION_RUN_NOT_FOUND", message: defaultMessage("EVALUATION_RUN_NOT_FOUND") };
}
