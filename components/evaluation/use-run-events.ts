"use client";
// Pushed progress of the KB's active evaluation runs (issue 21): one SSE stream per queued or
// running run (GET …/evaluation/runs/{run_id}/events), written into the evaluation overview's
// React Query cache as it arrives; after the terminal event the overview and results are
// refetched. Browsers allow ~6 connections per host over HTTP/1.1 and the parse-job streams and
// the chat use some, so at most MAX_RUN_STREAMS runs are streamed; the others, and any run whose
// stream fails, are polled by the overview query (needsEvaluationPolling).
import { useEffect, useRef } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { create } from "zustand";
import { invalidateEvaluation, isActiveRun, patchEvalRun } from "@/components/api/queries";
import { kbPath } from "@/components/api/http-client";
import { openSse } from "@/components/api/sse-client";
import type { EvalRun, EvalRunEvent } from "@/components/api/types";

export const MAX_RUN_STREAMS = 2;
const TERMINAL: EvalRunEvent["type"][] = ["succeeded", "failed", "cancelled", "error"];

interface StreamState {
  /** Runs whose stream could not be opened or broke off: the overview polls for them. */
  failed: Record<string, true>;
  markFailed: (runId: string) => void;
}

export const useRunStreamStore = create<StreamState>((set) => ({
  failed: {},
  markFailed: (runId) => set((s) => ({ failed: { ...s.failed, [runId]: true } })),
}));

export function streamedRunIds(runs: EvalRun[], failed: Record<string, true>): string[] {
  return runs.filter((r) => isActiveRun(r) && !failed[r.id]).slice(0, MAX_RUN_STREAMS).map((r) => r.id);
}

/** For the overview's refetchInterval: poll while an active run has no stream. */
export function needsEvaluationPolling(runs: EvalRun[]): boolean {
  const streamed = streamedRunIds(runs, useRunStreamStore.getState().failed);
  return runs.some((r) => isActiveRun(r) && !streamed.includes(r.id));
}

/** Applies one pushed event to a cached run (done never goes back: a refetch may lag the stream). */
export function applyRunEvent(r: EvalRun, e: EvalRunEvent): EvalRun {
  if (e.type === "progress") return { ...r, status: e.status, done: Math.max(r.done, e.done), total: e.total };
  if (e.type === "error") return r;
  return { ...r, status: e.status, done: e.done, total: e.total, metrics: e.metrics, error_message: e.error_message, finished_at: e.finished_at };
}

export function useRunEvents(kbId: string, runs: EvalRun[] | undefined): void {
  const qc = useQueryClient();
  const failed = useRunStreamStore((s) => s.failed);
  const active = useRef(new Map<string, AbortController>());
  const wantedKey = streamedRunIds(runs ?? [], failed).join(",");

  useEffect(() => {
    const ids = wantedKey ? wantedKey.split(",") : [];
    const map = active.current;
    for (const [id, c] of map) {
      if (!ids.includes(id)) {
        c.abort();
        map.delete(id);
      }
    }
    for (const runId of ids) {
      if (map.has(runId)) continue;
      const controller = new AbortController();
      map.set(runId, controller);
      openSse({
        url: kbPath(kbId, `/evaluation/runs/${encodeURIComponent(runId)}/events`),
        signal: controller.signal,
        terminal: TERMINAL,
        onEvent: ({ event, data }) => {
          const e = { ...(data as object), type: event } as EvalRunEvent;
          patchEvalRun(qc, kbId, runId, (r) => applyRunEvent(r, e));
          // The end (or the run's deletion): the metrics and results are read again once.
          if (TERMINAL.includes(e.type)) invalidateEvaluation(qc, kbId);
        },
      })
        .then(() => {
          map.delete(runId);
        })
        .catch(() => {
          if (controller.signal.aborted) return;
          map.delete(runId);
          // The overview polls this run from now on; read its state now.
          useRunStreamStore.getState().markFailed(runId);
          invalidateEvaluation(qc, kbId);
        });
    }
  }, [kbId, wantedKey, qc]);

  useEffect(() => {
    const map = active.current;
    return () => {
      for (const c of map.values()) c.abort();
      map.clear();
    };
  }, []);
}
