"use client";
import { useState } from "react";
import type { ConversationSummary } from "@/components/api/types";
import { useLocale, useT } from "@/components/i18n/locale-store";
import { Button, focusRing } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { HistoryIcon, PlusIcon, TrashIcon } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";
import { cx } from "@/components/ui/cx";

export function formatTime(iso: string | null, locale: "zh" | "en"): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return new Intl.DateTimeFormat(locale === "zh" ? "zh-CN" : "en", { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" }).format(d);
}

export interface ConversationHistoryProps {
  conversations: ConversationSummary[] | undefined;
  loading: boolean;
  error: string | null;
  currentId: string | null;
  onSelect: (id: string) => void;
  onNew: () => void;
  onDelete: (id: string) => Promise<unknown>;
}

export function ConversationHistory({ conversations, loading, error, currentId, onSelect, onNew, onDelete }: ConversationHistoryProps) {
  const t = useT();
  const locale = useLocale();
  const [pendingDelete, setPendingDelete] = useState<ConversationSummary | null>(null);
  return (
    <div data-testid="conversation-history" className="flex flex-col gap-3">
      <div className="flex items-center justify-between">
        <h3 className="text-sm font-semibold text-slate-800">{t("history.title")}</h3>
        <Button size="sm" variant="subtle" onClick={onNew}>
          <PlusIcon />
          {t("history.new")}
        </Button>
      </div>
      {loading ? (
        <p className="flex items-center gap-2 text-sm text-slate-500">
          <Spinner /> {t("common.loading")}
        </p>
      ) : error ? (
        <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800">
          {t("common.loadFailed", { message: error })}
        </p>
      ) : !conversations || conversations.length === 0 ? (
        <EmptyState icon={<HistoryIcon width={20} height={20} />} title={t("history.empty")} />
      ) : (
        <ul className="flex flex-col gap-1.5">
          {conversations.map((c) => {
            const title = c.title || t("history.untitled");
            const current = c.id === currentId;
            return (
              <li key={c.id} data-testid="conversation-item" className={cx("group flex items-center gap-1 rounded-xl border", current ? "border-indigo-300 bg-indigo-50" : "border-slate-200 bg-white hover:bg-slate-50")}>
                <button type="button" aria-current={current ? "true" : undefined} onClick={() => onSelect(c.id)} className={cx("min-w-0 flex-1 rounded-xl px-3 py-2 text-left", focusRing)}>
                  <span className="block truncate text-sm font-medium text-slate-800">{title}</span>
                  <span className={cx("mt-0.5 block text-xs", current ? "text-slate-600" : "text-slate-500")}>
                    {formatTime(c.last_message_at ?? c.created_at, locale)} · {t("history.messages", { count: c.message_count })}
                  </span>
                </button>
                <Button variant="ghost" size="icon" className="mr-1" aria-label={`${t("history.clear")}: ${title}`} onClick={() => setPendingDelete(c)}>
                  <TrashIcon />
                </Button>
              </li>
            );
          })}
        </ul>
      )}
      <ConfirmDialog
        open={!!pendingDelete}
        title={t("history.clearTitle", { title: pendingDelete?.title || t("history.untitled") })}
        body={t("history.clearBody")}
        confirmLabel={t("history.clear")}
        onClose={() => setPendingDelete(null)}
        onConfirm={() => (pendingDelete ? onDelete(pendingDelete.id) : undefined)}
      />
    </div>
  );
}
