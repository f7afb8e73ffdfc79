"use client";
import { useState } from "react";
import type { KnowledgeSummary } from "@/components/api/types";
import { useDeleteKnowledge, useRenameKnowledge } from "@/components/api/queries";
import { useT } from "@/components/i18n/locale-store";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { PencilIcon, TrashIcon, UsersIcon } from "@/components/ui/icons";
import { formatBytes, roleKey } from "./format";
import { KbNameDialog } from "./kb-name-dialog";
import { MembersDialog } from "./members-dialog";

export function canWrite(role: string): boolean {
  return role === "owner" || role === "editor";
}

export function KbHeader({ kb }: { kb: KnowledgeSummary }) {
  const t = useT();
  const rename = useRenameKnowledge();
  const del = useDeleteKnowledge();
  const [dialog, setDialog] = useState<"rename" | "delete" | "members" | null>(null);
  const owner = kb.role === "owner";
  return (
    <div className="flex flex-wrap items-start gap-3 border-b border-slate-200 bg-white px-4 py-3 sm:px-6">
      <div className="min-w-0 flex-1">
        <div className="flex items-center gap-2">
          <h1 data-testid="kb-title" className="truncate text-lg font-semibold text-slate-900">
            {kb.name}
          </h1>
          <Badge tone={owner ? "brand" : "neutral"}>{t(roleKey(kb.role))}</Badge>
        </div>
        {kb.description ? <p className="mt-0.5 line-clamp-2 text-sm text-slate-500">{kb.description}</p> : null}
        <p className="mt-1 flex flex-wrap gap-x-3 text-xs text-slate-500">
          <span>{t("kb.fileCount", { count: kb.file_count })}</span>
          {/* Green only when something is searchable: "0 可检索" on an empty KB is not good news. */}
          <span data-testid="kb-ready-count" data-tone={kb.ready_file_count > 0 ? "success" : "neutral"} className={kb.ready_file_count > 0 ? "text-emerald-700" : undefined}>
            {t("kb.ready", { count: kb.ready_file_count })}
          </span>
          {kb.indexing_file_count > 0 ? <span className="text-sky-700">{t("kb.indexingCount", { count: kb.indexing_file_count })}</span> : null}
          {kb.failed_file_count > 0 ? <span className="text-rose-700">{t("kb.failedCount", { count: kb.failed_file_count })}</span> : null}
          <span>{formatBytes(kb.total_file_size)}</span>
        </p>
      </div>
      <div className="flex items-center gap-1" role="group" aria-label={t("kb.actions")}>
        {owner ? (
          <Button variant="ghost" size="sm" data-testid="kb-members" onClick={() => setDialog("members")}>
            <UsersIcon />
            <span className="hidden md:inline">{t("kb.members")}</span>
          </Button>
        ) : null}
        {canWrite(kb.role) ? (
          <Button variant="ghost" size="sm" data-testid="kb-rename" aria-label={t("kb.rename")} onClick={() => setDialog("rename")}>
            <PencilIcon />
            <span className="hidden md:inline">{t("kb.rename")}</span>
          </Button>
        ) : null}
        {owner ? (
          <Button variant="ghost" size="sm" data-testid="kb-delete" aria-label={t("kb.delete")} className="text-rose-700 hover:bg-rose-50 hover:text-rose-800" onClick={() => setDialog("delete")}>
            <TrashIcon />
            <span className="hidden md:inline">{t("common.delete")}</span>
          </Button>
        ) : null}
      </div>
      <KbNameDialog
        open={dialog === "rename"}
        title={t("kb.renameTitle")}
        initialName={kb.name}
        submitLabel={t("common.save")}
        onClose={() => setDialog(null)}
        onSubmit={(v) => rename.mutateAsync({ id: kb.id, name: v.name })}
      />
      <ConfirmDialog
        open={dialog === "delete"}
        title={t("kb.deleteTitle", { name: kb.name })}
        body={t("kb.deleteBody")}
        confirmLabel={t("kb.delete")}
        onClose={() => setDialog(null)}
        onConfirm={() => del.mutateAsync(kb.id)}
      />
      {owner ? <MembersDialog kb={kb} open={dialog === "members"} onClose={() => setDialog(null)} /> : null}
    </div>
  );
}
