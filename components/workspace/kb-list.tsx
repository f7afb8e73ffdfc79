"use client";
import { useEffect, useRef, useState } from "react";
import type { KnowledgeSummary } from "@/components/api/types";
import { useCreateKnowledge } from "@/components/api/queries";
import { useT } from "@/components/i18n/locale-store";
import { Button, focusRing } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { BookIcon, PlusIcon } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";
import { cx } from "@/components/ui/cx";
import { formatBytes } from "./format";
import { KbNameDialog } from "./kb-name-dialog";
import { useWorkspaceStore } from "./workspace-store";

export function KbList({ knowledges, loading, error }: { knowledges: KnowledgeSummary[] | undefined; loading: boolean; error: string | null }) {
  const t = useT();
  const selected = useWorkspaceStore((s) => s.selectedKbId);
  const selectKb = useWorkspaceStore((s) => s.selectKb);
  const setDrawer = useWorkspaceStore((s) => s.setKbDrawerOpen);
  const createRequested = useWorkspaceStore((s) => s.createKbRequested);
  const create = useCreateKnowledge();
  const [creating, setCreating] = useState(false);
  const seen = useRef(createRequested);

  // The assistant's "create one" invitation bumps a counter; open the dialog in response.
  useEffect(() => {
    if (createRequested === seen.current) return;
    seen.current = createRequested;
    const id = requestAnimationFrame(() => setCreating(true));
    return () => cancelAnimationFrame(id);
  }, [createRequested]);

  return (
    <nav aria-label={t("kb.list")} data-testid="kb-list" className="flex h-full min-h-0 flex-col">
      <div className="flex items-center justify-between px-4 pb-2 pt-4">
        <h2 className="text-xs font-semibold uppercase tracking-wide text-slate-500">{t("kb.list")}</h2>
        <Button variant="ghost" size="icon" data-testid="kb-create" aria-label={t("kb.create")} title={t("kb.create")} onClick={() => setCreating(true)}>
          <PlusIcon />
        </Button>
      </div>
      <div className="min-h-0 flex-1 overflow-y-auto px-2 pb-4">
        {loading ? (
          <p className="flex items-center gap-2 px-2 py-3 text-sm text-slate-500">
            <Spinner /> {t("common.loading")}
          </p>
        ) : error ? (
          <p role="alert" className="mx-2 rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800">
            {t("common.loadFailed", { message: error })}
          </p>
        ) : !knowledges || knowledges.length === 0 ? (
          <EmptyState
            testId="kb-empty"
            icon={<BookIcon width={20} height={20} />}
            title={t("kb.empty")}
            hint={t("kb.emptyHint")}
            action={
              <Button variant="primary" onClick={() => setCreating(true)}>
                <PlusIcon />
                {t("kb.create")}
              </Button>
            }
          />
        ) : (
          <ul className="flex flex-col gap-1">
            {knowledges.map((k) => {
              const active = k.id === selected;
              return (
                <li key={k.id}>
                  <button
                    type="button"
                    data-testid="kb-item"
                    data-kb-id={k.id}
                    aria-current={active ? "true" : undefined}
                    onClick={() => {
                      selectKb(k.id);
                      setDrawer(false);
                    }}
                    className={cx("w-full rounded-xl px-3 py-2 text-left transition-colors", focusRing, active ? "bg-indigo-50 ring-1 ring-inset ring-indigo-200" : "hover:bg-slate-100")}
                  >
                    <span className={cx("block truncate text-sm font-medium", active ? "text-indigo-900" : "text-slate-800")}>{k.name}</span>
                    <span className={cx("mt-0.5 flex flex-wrap gap-x-2 text-xs", active ? "text-slate-600" : "text-slate-500")}>
                      <span>{t("kb.fileCount", { count: k.file_count })}</span>
                      {k.indexing_file_count > 0 ? <span className="text-sky-700">{t("kb.indexingCount", { count: k.indexing_file_count })}</span> : null}
                      {k.failed_file_count > 0 ? <span className="text-rose-700">{t("kb.failedCount", { count: k.failed_file_count })}</span> : null}
                      {k.total_file_size > 0 ? <span>{formatBytes(k.total_file_size)}</span> : null}
                    </span>
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      </div>
      <KbNameDialog
        open={creating}
        title={t("kb.createTitle")}
        withDescription
        submitLabel={t("kb.create")}
        onClose={() => setCreating(false)}
        onSubmit={async (v) => {
          const kb = await create.mutateAsync(v);
          selectKb(kb.id);
          setDrawer(false);
        }}
      />
    </nav>
  );
}
