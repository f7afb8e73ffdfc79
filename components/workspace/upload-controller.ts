"use client";
// Uploads each file in its own request so every file gets its own progress bar and its own
// error (too large, unsupported, duplicate) without failing the others.
import type { QueryClient } from "@tanstack/react-query";
import { invalidateKb, queryKeys } from "@/components/api/queries";
import { isApiError } from "@/components/api/http-client";
import { uploadFiles } from "@/components/api/upload";
import { useUploadStore } from "./upload-store";

const CONCURRENCY = 2;
let seq = 0;

export async function startUploads(kbId: string, files: File[], qc: QueryClient): Promise<void> {
  const store = useUploadStore.getState();
  const items = files.map((f) => ({ id: `up-${Date.now().toString(36)}-${seq++}`, kbId, name: f.name, size: f.size, progress: 0, phase: "uploading" as const }));
  store.add(items);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      const file = files[i]!;
      const item = items[i]!;
      try {
        const results = await uploadFiles(kbId, [file], (fraction) => useUploadStore.getState().update(item.id, { progress: fraction })).promise;
        const r = results[0];
        if (!r) throw new Error("empty upload response");
        if (r.ok) {
          useUploadStore.getState().update(item.id, { phase: "uploaded", progress: 1, fileId: r.file.id });
        } else {
          useUploadStore.getState().update(item.id, { phase: "error", error: { code: r.code, message: r.message } });
        }
      } catch (e) {
        const error = isApiError(e) ? { code: e.code, message: e.message } : { code: "INTERNAL_ERROR", message: String(e) };
        useUploadStore.getState().update(item.id, { phase: "error", error });
      }
      await qc.invalidateQueries({ queryKey: queryKeys.tree });
      invalidateKb(qc, kbId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, files.length) }, worker));
}
