"use client";
import type { AssistantBootstrap } from "@/components/api/types";
import { useT } from "@/components/i18n/locale-store";
import { AlertIcon, InfoIcon } from "@/components/ui/icons";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { STATUS_NOTICES, partialIndexingCount } from "./assistant-status";

const TONES = {
  info: "bg-sky-50 text-sky-900 ring-sky-200",
  warn: "bg-amber-50 text-amber-900 ring-amber-200",
  error: "bg-rose-50 text-rose-900 ring-rose-200",
  muted: "bg-slate-100 text-slate-800 ring-slate-200",
};

/** The visible reason the composer is disabled, and what to do next (issue 6). */
export function StatusNotice({ id, bootstrap, onAction }: { id: string; bootstrap: AssistantBootstrap; onAction?: (a: "upload" | "files") => void }) {
  const t = useT();
  const status = bootstrap.assistant_status;
  if (status === "ready") {
    const n = partialIndexingCount(bootstrap);
    if (n === 0) return null;
    return (
      <p id={id} data-testid="status-notice" data-status="partial" className="flex items-center gap-1.5 px-1 text-xs text-slate-500">
        <InfoIcon width={14} height={14} />
        {t("assistant.status.partial", { count: n })}
      </p>
    );
  }
  const notice = STATUS_NOTICES[status] ?? STATUS_NOTICES.disabled;
  return (
    <div id={id} role="status" data-testid="status-notice" data-status={status} className={cx("flex items-start gap-2.5 rounded-xl px-3 py-2.5 text-sm ring-1 ring-inset", TONES[notice.tone])}>
      <AlertIcon className="mt-0.5 shrink-0" />
      <div className="min-w-0 flex-1">
        <p className="font-medium">{t(notice.title)}</p>
        <p className="mt-0.5 text-xs opacity-90">{t(notice.next)}</p>
      </div>
      {notice.action && onAction ? (
        <Button size="sm" variant="secondary" onClick={() => onAction(notice.action!)}>
          {notice.action === "upload" ? t("assistant.goUpload") : t("assistant.goFiles")}
        </Button>
      ) : null}
    </div>
  );
}
