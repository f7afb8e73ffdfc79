"use client";
// The selected KB's files with upload, live parse stages and per-file errors, as a pure view
// (the flow gallery renders it from fixtures in every file state).
import { useRef, useState, type DragEvent } from "react";
import type { KnowledgeFile } from "@/components/api/types";
import { isIndexingStatus } from "@/components/api/queries";
import { useErrorCopy, useT, type Translate } from "@/components/i18n/locale-store";
import type { MessageKey } from "@/components/i18n/dictionary";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button, focusRing } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { CloseIcon, FileIcon, RefreshIcon, TrashIcon, UploadIcon } from "@/components/ui/icons";
import { ProgressBar } from "@/components/ui/progress-bar";
import { Spinner } from "@/components/ui/spinner";
import { cx } from "@/components/ui/cx";
import { fileTypeLabel, formatBytes } from "./format";
import type { ParseProgress, UploadItem } from "./upload-store";

const STATUS_TONE: Record<string, BadgeTone> = { success: "success", failed: "error", queued: "neutral", uploading: "brand" };
const KNOWN = ["queued", "parsing", "chunking", "embedding", "indexing", "success", "failed", "pending", "skipped"];

export const ACCEPT = ".pdf,.docx,.md,.markdown,.txt,.html,.htm";

function statusLabel(t: Translate, status: string): string {
  return KNOWN.includes(status) ? t(`status.${status}` as MessageKey) : status;
}

export interface FileListViewProps {
  files: KnowledgeFile[] | null | undefined;
  loading?: boolean;
  error?: string | null;
  uploads: UploadItem[];
  progress: Record<string, ParseProgress>;
  canWrite: boolean;
  onUpload: (files: File[]) => void;
  onOpen: (file: KnowledgeFile) => void;
  onDelete: (file: KnowledgeFile) => Promise<unknown>;
  onReparse: (file: KnowledgeFile) => Promise<unknown>;
  onDismissUpload: (id: string) => void;
}

function FileRow({ file, progress, canWrite, onOpen, onAskDelete, onReparse }: { file: KnowledgeFile; progress?: ParseProgress; canWrite: boolean; onOpen: () => void; onAskDelete: () => void; onReparse: () => Promise<unknown> }) {
  const t = useT();
  const errorCopy = useErrorCopy();
  const [reparsing, setReparsing] = useState(false);
  const processing = isIndexingStatus(file.status);
  // A live stage from the stream is fresher than the last fetched status, while processing.
  const stage = processing && progress && progress.stage !== "success" && progress.stage !== "failed" ? progress.stage : file.status;
  const tone = STATUS_TONE[stage] ?? (isIndexingStatus(stage) ? "info" : "neutral");
  // One language at a time: the reason is the UI's own copy for the code; the server's text
  // (English, for logs and API clients) is only a detail under it.
  const failureCode = file.status === "failed" ? (file.error_code ?? "") : processing && progress?.error ? progress.error.code : null;
  const failureDetail = file.status === "failed" ? (file.error_message ?? "") : (progress?.error?.message ?? "");
  const failure = failureCode === null ? null : failureCopy(t, errorCopy, failureCode);
  return (
    <li data-testid="file-row" data-file-id={file.id} data-status={stage} className="flex flex-col gap-2 px-4 py-3 hover:bg-slate-50/70">
      <div className="flex items-start gap-3">
        <span className="mt-0.5 flex h-8 w-10 shrink-0 items-center justify-center rounded-md bg-slate-100 text-[0.65rem] font-bold text-slate-600">{fileTypeLabel(file.file_type, file.name)}</span>
        <div className="min-w-0 flex-1">
          <button type="button" onClick={onOpen} aria-label={t("files.open", { name: file.name })} className={cx("block max-w-full truncate rounded text-left text-sm font-medium text-slate-900 hover:text-indigo-700 hover:underline", focusRing)}>
            {file.name}
          </button>
          <p className="mt-0.5 flex flex-wrap gap-x-2 text-xs text-slate-500">
            <span>{formatBytes(file.size)}</span>
            {file.page_count != null ? <span>{t("files.pages", { count: file.page_count })}</span> : null}
            {file.status === "success" || file.chunk_count > 0 ? <span>{t("files.chunks", { count: file.chunk_count })}</span> : null}
          </p>
        </div>
        <div className="flex shrink-0 flex-col items-end gap-1">
          <span data-testid="file-status" data-status={stage}>
            <Badge tone={tone}>
              {processing ? <Spinner className="h-2.5 w-2.5" /> : null}
              {statusLabel(t, stage)}
            </Badge>
          </span>
          {file.embedding_status && file.embedding_status !== file.status && file.status === "success" ? (
            <Badge tone={file.embedding_status === "failed" ? "error" : "neutral"} data-testid="embedding-status">
              {t("files.embedding")} · {statusLabel(t, file.embedding_status)}
            </Badge>
          ) : null}
        </div>
        {canWrite ? (
          <div className="flex shrink-0 items-center gap-0.5">
            <Button
              variant="ghost"
              size="icon"
              aria-label={`${t("files.reparse")}: ${file.name}`}
              title={t("files.reparse")}
              disabled={processing || reparsing}
              onClick={async () => {
                setReparsing(true);
                try {
                  await onReparse();
                } finally {
                  setReparsing(false);
                }
              }}
            >
              <RefreshIcon />
            </Button>
            <Button variant="ghost" size="icon" aria-label={`${t("files.delete")}: ${file.name}`} title={t("files.delete")} onClick={onAskDelete}>
              <TrashIcon />
            </Button>
          </div>
        ) : null}
      </div>
      {processing ? (
        <div className="pl-[3.25rem]">
          <ProgressBar value={progress?.percent ?? 0} label={statusLabel(t, stage)} />
          {/* The stage in the UI's copy and one percentage; the server's own progress text is English. */}
          <p data-testid="file-progress" className="mt-1 text-xs text-slate-500">
            {statusLabel(t, stage)}
            {progress ? ` · ${Math.round(progress.percent)}%` : ""}
          </p>
        </div>
      ) : null}
      {failure ? (
        <div data-testid="file-error" data-code={failureCode} className="ml-[3.25rem] rounded-lg bg-rose-50 px-2.5 py-1.5 text-xs text-rose-800">
          <p data-testid="file-error-text">{t("files.failureReason", { reason: failure })}</p>
          {failureDetail ? (
            <p data-testid="file-error-detail" lang="en" className="mt-0.5 text-[0.7rem] text-rose-800">
              {t("files.failureDetail", { detail: failureDetail })}
            </p>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}

function failureCopy(t: Translate, errorCopy: (code: string, message: string) => { text: string }, code: string): string {
  if (code === "FILE_TYPE_UNSUPPORTED" || code === "FILE_TOO_LARGE") return t(`files.failedCopy.${code}`);
  return code ? errorCopy(code, "").text : t("files.failedCopy.generic");
}

function UploadRow({ item, onDismiss }: { item: UploadItem; onDismiss: () => void }) {
  const t = useT();
  const errorCopy = useErrorCopy();
  const pct = Math.round(item.progress * 100);
  const err = item.error ? errorCopy(item.error.code, item.error.message) : null;
  return (
    <li data-testid="file-row" data-upload="true" data-status={item.phase === "error" ? "failed" : "uploading"} className="flex flex-col gap-2 px-4 py-3">
      <div className="flex items-start gap-3">
        <span className="mt-0.5 flex h-8 w-10 shrink-0 items-center justify-center rounded-md bg-slate-100 text-[0.65rem] font-bold text-slate-600">{fileTypeLabel(null, item.name)}</span>
        <div className="min-w-0 flex-1">
          <p className="truncate text-sm font-medium text-slate-900">{item.name}</p>
          <p className="mt-0.5 text-xs text-slate-500">{formatBytes(item.size)}</p>
        </div>
        <span data-testid="file-status" data-status={item.phase === "error" ? "failed" : "uploading"}>
          <Badge tone={item.phase === "error" ? "error" : "brand"}>{item.phase === "error" ? t("files.uploadFailed") : t("files.uploading", { percent: pct })}</Badge>
        </span>
        {item.phase === "error" ? (
          <Button variant="ghost" size="icon" aria-label={`${t("files.dismiss")}: ${item.name}`} onClick={onDismiss}>
            <CloseIcon />
          </Button>
        ) : null}
      </div>
      {item.phase !== "error" ? (
        <div className="pl-[3.25rem]">
          <ProgressBar value={pct} label={t("files.uploading", { percent: pct })} />
        </div>
      ) : null}
      {err ? (
        // The UI's copy for the code; the server's English text only as a labelled detail. The
        // row stays until dismissed, so a rejected file's reason can be read later.
        <div data-testid="file-error" data-code={item.error?.code} role="alert" className="ml-[3.25rem] rounded-lg bg-rose-50 px-2.5 py-1.5 text-xs text-rose-800">
          <p data-testid="file-error-text">{err.text}</p>
          {item.error?.message && err.text !== item.error.message ? (
            <p data-testid="file-error-detail" lang="en" className="mt-0.5 text-[0.7rem] text-rose-800">
              {t("files.failureDetail", { detail: item.error.message })}
            </p>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}

export function FileListView(p: FileListViewProps) {
  const t = useT();
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [pendingDelete, setPendingDelete] = useState<KnowledgeFile | null>(null);
  const depth = useRef(0);
  const files = p.files ?? [];
  const known = new Set(files.map((f) => f.id));
  // An upload row disappears once the server lists its file (the file row takes over).
  const uploads = p.uploads.filter((u) => !(u.fileId && known.has(u.fileId)));

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    depth.current = 0;
    setDragging(false);
    if (!p.canWrite) return;
    const list = Array.from(e.dataTransfer.files ?? []);
    if (list.length) p.onUpload(list);
  };

  return (
    <div
      data-testid="file-panel"
      className="relative flex min-h-0 flex-1 flex-col"
      onDragEnter={(e) => {
        if (!p.canWrite || !e.dataTransfer.types.includes("Files")) return;
        e.preventDefault();
        depth.current++;
        setDragging(true);
      }}
      onDragOver={(e) => {
        if (p.canWrite) e.preventDefault();
      }}
      onDragLeave={() => {
        depth.current = Math.max(0, depth.current - 1);
        if (depth.current === 0) setDragging(false);
      }}
      onDrop={onDrop}
    >
      {p.canWrite ? (
        <div className="px-4 pt-4">
          <div
            data-testid="dropzone"
            className={cx(
              "flex flex-col items-center gap-2 rounded-2xl border-2 border-dashed px-4 py-5 text-center transition-colors sm:flex-row sm:text-left",
              dragging ? "border-indigo-400 bg-indigo-50" : "border-slate-200 bg-white",
            )}
          >
            <div className="rounded-full bg-indigo-50 p-2.5 text-indigo-600">
              <UploadIcon width={20} height={20} />
            </div>
            <div className="min-w-0 flex-1">
              <p className="text-sm font-medium text-slate-800">{dragging ? t("files.dropActive") : t("files.dropHere")}</p>
              <p className="mt-0.5 text-xs text-slate-500">{t("files.supported")}</p>
            </div>
            <input
              ref={input}
              type="file"
              multiple
              accept={ACCEPT}
              data-testid="upload-input"
              aria-label={t("files.upload")}
              className="sr-only"
              tabIndex={-1}
              onChange={(e) => {
                const list = Array.from(e.target.files ?? []);
                e.target.value = "";
                if (list.length) p.onUpload(list);
              }}
            />
            <Button variant="primary" data-testid="upload-button" onClick={() => input.current?.click()}>
              <UploadIcon />
              {t("files.upload")}
            </Button>
          </div>
        </div>
      ) : (
        <p data-testid="viewer-notice" className="mx-4 mt-4 rounded-xl bg-slate-100 px-3 py-2 text-sm text-slate-600">
          {t("files.viewerCannotUpload")}
        </p>
      )}
      <div className="min-h-0 flex-1 overflow-y-auto px-4 py-4">
        <div className="overflow-hidden rounded-2xl border border-slate-200 bg-white">
          {p.loading ? (
            <p className="flex items-center gap-2 p-4 text-sm text-slate-500">
              <Spinner /> {t("files.loading")}
            </p>
          ) : p.error ? (
            <p role="alert" className="m-4 rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800">
              {t("common.loadFailed", { message: p.error })}
            </p>
          ) : files.length === 0 && uploads.length === 0 ? (
            <EmptyState testId="files-empty" icon={<FileIcon width={20} height={20} />} title={t("files.empty")} hint={t("files.emptyHint")} />
          ) : (
            <ul data-testid="file-list" aria-label={t("files.title")} className="divide-y divide-slate-100">
              {uploads.map((u) => (
                <UploadRow key={u.id} item={u} onDismiss={() => p.onDismissUpload(u.id)} />
              ))}
              {files.map((f) => (
                <FileRow key={f.id} file={f} progress={p.progress[f.id]} canWrite={p.canWrite} onOpen={() => p.onOpen(f)} onAskDelete={() => setPendingDelete(f)} onReparse={() => p.onReparse(f)} />
              ))}
            </ul>
          )}
        </div>
      </div>
      <ConfirmDialog
        open={!!pendingDelete}
        title={t("files.deleteTitle", { name: pendingDelete?.name ?? "" })}
        body={t("files.deleteBody")}
        confirmLabel={t("common.delete")}
        onClose={() => setPendingDelete(null)}
        onConfirm={() => (pendingDelete ? p.onDelete(pendingDelete) : undefined)}
      />
    </div>
  );
}
