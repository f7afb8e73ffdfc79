"use client";
import { useEffect } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { useDeleteFile, useKnowledgeFiles, useReparseFile } from "@/components/api/queries";
import { isApiError } from "@/components/api/http-client";
import { useViewerStore } from "@/components/viewer/viewer-store";
import { FileListView } from "./file-list-view";
import { startUploads } from "./upload-controller";
import { useUploadStore } from "./upload-store";
import { needsPolling, useParseJobs } from "./use-parse-jobs";
import { useWorkspaceStore } from "./workspace-store";

export function FilePanel({ kbId, canWrite }: { kbId: string; canWrite: boolean }) {
  const qc = useQueryClient();
  const files = useKnowledgeFiles(kbId, needsPolling);
  const allUploads = useUploadStore((s) => s.uploads);
  const progress = useUploadStore((s) => s.progress);
  const removeUpload = useUploadStore((s) => s.remove);
  const setProgress = useUploadStore((s) => s.setProgress);
  const openViewer = useViewerStore((s) => s.open);
  const setMainTab = useWorkspaceStore((s) => s.setMainTab);
  const del = useDeleteFile(kbId);
  const reparse = useReparseFile(kbId);
  useParseJobs(kbId, files.data);
  const uploads = allUploads.filter((u) => u.kbId === kbId);

  // Once the server lists an uploaded file its own row takes over; drop the upload entry so a
  // later delete does not bring the finished upload back.
  const listed = files.data;
  useEffect(() => {
    if (!listed) return;
    const ids = new Set(listed.map((f) => f.id));
    for (const u of useUploadStore.getState().uploads) if (u.fileId && ids.has(u.fileId)) removeUpload(u.id);
  }, [listed, removeUpload]);

  return (
    <FileListView
      files={files.data}
      loading={files.isPending}
      error={files.isError ? (isApiError(files.error) ? files.error.message : String(files.error)) : null}
      uploads={uploads}
      progress={progress}
      canWrite={canWrite}
      onUpload={(list) => void startUploads(kbId, list, qc)}
      onOpen={(f) => {
        openViewer({ kbId, fileId: f.id, fileName: f.name, page: null, quote: null, chunkId: null });
        setMainTab("viewer");
      }}
      onDelete={async (f) => {
        await del.mutateAsync(f.id);
        const target = useViewerStore.getState().target;
        if (target?.fileId === f.id) useViewerStore.getState().close();
      }}
      onReparse={async (f) => {
        setProgress(f.id, null);
        await reparse.mutateAsync(f.id);
      }}
      onDismissUpload={removeUpload}
    />
  );
}
