"use client";
import { useEffect, useId, useState } from "react";
import type { ConversationSummary } from "@/components/api/types";
import { useLocale, useT } from "@/components/i18n/locale-store";
import { Button, focusRing } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Dialog } from "@/components/ui/dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { HistoryIcon, PencilIcon, PlusIcon, SearchIcon, TrashIcon } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";
import { inputClass, TextField } from "@/components/ui/text-field";
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
  /** Server-side search of titles and message text; absent in the gallery's fixtures. */
  search?: string;
  onSearch?: (q: string) => void;
  total?: number;
  hasMore?: boolean;
  loadingMore?: boolean;
  onMore?: () => void;
  onRename?: (id: string, title: string) => Promise<unknown>;
}

export function ConversationHistory(p: ConversationHistoryProps) {
  const { conversations, loading, error, currentId, onSelect, onNew, onDelete } = p;
  const t = useT();
  const locale = useLocale();
  const searchId = useId();
  const [pendingDelete, setPendingDelete] = useState<ConversationSummary | null>(null);
  const [renaming, setRenaming] = useState<ConversationSummary | null>(null);
  // Typed text reaches the server after a short pause, not on every key.
  const [query, setQuery] = useState(p.search ?? "");
  const onSearch = p.onSearch;
  useEffect(() => {
    if (!onSearch) return;
    const timer = setTimeout(() => onSearch(query), 250);
    return () => clearTimeout(timer);
  }, [query, onSearch]);
  const searching = !!p.search?.trim();

  return (
    <div data-testid="conversation-history" className="flex flex-col gap-3">
      <div className="flex items-center justify-between">
        <h3 className="text-sm font-semibold text-slate-800">{t("history.title")}</h3>
        <Button size="sm" variant="subtle" onClick={onNew}>
          <PlusIcon />
          {t("history.new")}
        </Button>
      </div>
      {p.onSearch ? (
        <div role="search" className="relative">
          <label htmlFor={searchId} className="sr-only">
            {t("convo.search")}
          </label>
          <SearchIcon className="pointer-events-none absolute left-2.5 top-1/2 -translate-y-1/2 text-slate-500" />
          <input
            id={searchId}
            type="search"
            data-testid="conversation-search"
            maxLength={200}
            placeholder={t("convo.searchPlaceholder")}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            className={cx(inputClass, "pl-8")}
          />
        </div>
      ) : null}
      {loading ? (
        <p className="flex items-center gap-2 text-sm text-slate-500">
          <Spinner /> {t("common.loading")}
        </p>
      ) : error ? (
        <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800">
          {t("common.loadFailed", { message: error })}
        </p>
      ) : !conversations || conversations.length === 0 ? (
        searching ? (
          <p data-testid="conversation-no-match" className="text-sm text-slate-600">
            {t("convo.noMatch", { q: p.search!.trim() })}
          </p>
        ) : (
          <EmptyState icon={<HistoryIcon width={20} height={20} />} title={t("history.empty")} />
        )
      ) : (
        <>
          {typeof p.total === "number" ? (
            <p data-testid="conversation-total" className="text-xs text-slate-600">
              {t("convo.total", { count: p.total })}
            </p>
          ) : null}
          <ul className="flex flex-col gap-1.5">
            {conversations.map((c) => {
              const title = c.title || t("history.untitled");
              const current = c.id === currentId;
              return (
                <li key={c.id} data-testid="conversation-item" data-id={c.id} className={cx("group flex items-center gap-1 rounded-xl border", current ? "border-indigo-300 bg-indigo-50" : "border-slate-200 bg-white hover:bg-slate-50")}>
                  <button type="button" aria-current={current ? "true" : undefined} onClick={() => onSelect(c.id)} className={cx("min-w-0 flex-1 rounded-xl px-3 py-2 text-left", focusRing)}>
                    <span data-testid="conversation-title" className="block truncate text-sm font-medium text-slate-800">
                      {title}
                    </span>
                    <span className={cx("mt-0.5 block text-xs", current ? "text-slate-600" : "text-slate-500")}>
                      {formatTime(c.last_message_at ?? c.created_at, locale)} · {t("history.messages", { count: c.message_count })}
                    </span>
                  </button>
                  {p.onRename ? (
                    <Button variant="ghost" size="icon" data-testid="conversation-rename" aria-label={`${t("convo.rename")}: ${title}`} onClick={() => setRenaming(c)}>
                      <PencilIcon />
                    </Button>
                  ) : null}
                  <Button variant="ghost" size="icon" className="mr-1" data-testid="conversation-clear" aria-label={`${t("history.clear")}: ${title}`} onClick={() => setPendingDelete(c)}>
                    <TrashIcon />
                  </Button>
                </li>
              );
            })}
          </ul>
          {p.hasMore && p.onMore ? (
            <Button size="sm" data-testid="conversation-more" disabled={p.loadingMore} onClick={p.onMore}>
              {p.loadingMore ? <Spinner className="h-3 w-3" /> : null}
              {t("convo.more")}
            </Button>
          ) : null}
        </>
      )}
      <ConfirmDialog
        open={!!pendingDelete}
        title={t("history.clearTitle", { title: pendingDelete?.title || t("history.untitled") })}
        body={t("convo.clearWhat", { count: pendingDelete?.message_count ?? 0 })}
        confirmLabel={t("history.clear")}
        onClose={() => setPendingDelete(null)}
        onConfirm={() => (pendingDelete ? onDelete(pendingDelete.id) : undefined)}
      />
      {p.onRename && renaming ? <RenameDialog key={renaming.id} conversation={renaming} onClose={() => setRenaming(null)} onRename={p.onRename} /> : null}
    </div>
  );
}

function RenameDialog({ conversation, onClose, onRename }: { conversation: ConversationSummary; onClose: () => void; onRename: (id: string, title: string) => Promise<unknown> }) {
  const t = useT();
  const formId = useId();
  const [title, setTitle] = useState(conversation.title);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <Dialog
      open
      onClose={onClose}
      title={t("convo.renameTitle")}
      testId="rename-conversation-dialog"
      footer={
        <>
          <Button onClick={onClose}>{t("common.cancel")}</Button>
          <Button variant="primary" type="submit" form={formId} disabled={pending || !title.trim()} data-testid="rename-conversation-save">
            {t("common.save")}
          </Button>
        </>
      }
    >
      <form
        id={formId}
        onSubmit={async (e) => {
          e.preventDefault();
          if (!title.trim()) return;
          setPending(true);
          setError(null);
          try {
            await onRename(conversation.id, title.trim());
            onClose();
          } catch (err) {
            setError((err as Error)?.message ?? "");
          } finally {
            setPending(false);
          }
        }}
      >
        <TextField label={t("convo.renameLabel")} data-testid="rename-conversation-input" autoFocus maxLength={100} value={title} onChange={(e) => setTitle(e.target.value)} />
        {error ? (
          <p role="alert" className="mt-2 text-sm text-rose-700">
            {error}
          </p>
        ) : null}
      </form>
    </Dialog>
  );
}
