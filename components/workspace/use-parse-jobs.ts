"use client";
// Live parse stages from the parse-job SSE (no polling) for files that are still processing.
// Browsers allow ~6 connections per host over HTTP/1.1, so at most MAX_STREAMS progress
// streams stay open; further files (and any whose stream fails) fall back to polling.
import { useEffect, useRef } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { invalidateKb, isIndexingStatus, queryKeys } from "@/components/api/queries";
import { isApiError, kbPath } from "@/components/api/http-client";
import { openSse } from "@/components/api/sse-client";
import type { KnowledgeFile } from "@/components/api/types";
import { useUploadStore } from "./upload-store";

export const MAX_STREAMS = 3;

export function streamedFileIds(files: KnowledgeFile[] | null | undefined, failed: Record<string, true>): string[] {
  return (files ?? []).filter((f) => isIndexingStatus(f.status) && !failed[f.id]).slice(0, MAX_STREAMS).map((f) => f.id);
}

/** For the tree query's refetchInterval: poll while a processing file has no stream. */
export function needsPolling(files: KnowledgeFile[]): boolean {
  const failed = useUploadStore.getState().streamFailed;
  const streamed = streamedFileIds(files, failed);
  return files.some((f) => isIndexingStatus(f.status) && !streamed.includes(f.id));
}

export function useParseJobs(kbId: string | null, files: KnowledgeFile[] | null | undefined): void {
  const qc = useQueryClient();
  const failed = useUploadStore((s) => s.streamFailed);
  const active = useRef(new Map<string, AbortController>());
  const wanted = kbId ? streamedFileIds(files, failed) : [];
  const wantedKey = wanted.join(",");

  useEffect(() => {
    const ids = wantedKey ? wantedKey.split(",") : [];
    const map = active.current;
    for (const [id, c] of map) {
      if (!ids.includes(id)) {
        c.abort();
        map.delete(id);
      }
    }
    if (!kbId) return;
    for (const fileId of ids) {
      if (map.has(fileId)) continue;
      const controller = new AbortController();
      map.set(fileId, controller);
      const store = useUploadStore.getState();
      const finish = () => {
        map.delete(fileId);
        void qc.invalidateQueries({ queryKey: queryKeys.tree });
        invalidateKb(qc, kbId);
      };
      openSse({
        url: kbPath(kbId, `/files/${encodeURIComponent(fileId)}/parse-job/events`),
        signal: controller.signal,
        terminal: ["done", "error"],
        onEvent: ({ event, data }) => {
          const d = (data ?? {}) as Record<string, unknown>;
          if (event === "progress") {
            store.setProgress(fileId, { stage: String(d.stage ?? "queued"), percent: Number(d.percent ?? 0), message: typeof d.message === "string" ? d.message : undefined });
          } else if (event === "done") {
            const ok = d.status !== "failed";
            store.setProgress(fileId, { stage: ok ? "success" : "failed", percent: 100 });
          } else if (event === "error") {
            store.setProgress(fileId, { stage: "failed", percent: 100, error: { code: String(d.code ?? "INTERNAL_ERROR"), message: String(d.message ?? "") } });
          }
        },
      })
        .then(() => {
          if (!controller.signal.aborted) finish();
        })
        .catch((e) => {
          if (controller.signal.aborted) return;
          // The job may simply have finished already (the route reports that as an error), so
          // refresh first; if the file is still processing it will be polled.
          if (!isApiError(e) || e.code !== "ABORTED") store.markStreamFailed(fileId);
          finish();
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
