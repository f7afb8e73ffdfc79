// Multipart upload with per-request progress. fetch has no upload progress events in
// browsers, so this one call uses XMLHttpRequest; the envelope is unwrapped the same way.
import { ApiError } from "./http-client";
import type { UploadResult } from "./types";

export interface UploadHandle {
  promise: Promise<UploadResult[]>;
  abort: () => void;
}

export function uploadFiles(kbId: string, files: File[], onProgress: (fraction: number) => void): UploadHandle {
  const xhr = new XMLHttpRequest();
  const promise = new Promise<UploadResult[]>((resolve, reject) => {
    const form = new FormData();
    for (const f of files) form.append("files", f, f.name);
    xhr.open("POST", `/v1/knowledges/${encodeURIComponent(kbId)}/files`);
    xhr.responseType = "text";
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(Math.min(1, e.loaded / e.total));
    };
    xhr.onerror = () => reject(new ApiError("NETWORK_ERROR", "Network error during upload", 0));
    xhr.onabort = () => reject(new ApiError("ABORTED", "Upload cancelled", 0));
    xhr.onload = () => {
      let body: { code?: unknown; msg?: string; data?: { files?: UploadResult[] } } | null = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        reject(new ApiError(xhr.status === 413 ? "PAYLOAD_TOO_LARGE" : "INTERNAL_ERROR", `HTTP ${xhr.status}`, xhr.status));
        return;
      }
      if (!body || body.code !== 0) {
        reject(new ApiError(String(body?.code ?? "INTERNAL_ERROR"), body?.msg ?? `HTTP ${xhr.status}`, xhr.status));
        return;
      }
      onProgress(1);
      resolve(body.data?.files ?? []);
    };
    xhr.send(form);
  });
  return { promise, abort: () => xhr.abort() };
}
