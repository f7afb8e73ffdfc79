"use client";
// The assistant's knowledge entry (seed 002: one list, not a second picker): the built-in KB and
// the bound external sources in one list, each external item with its provider badge and an
// unbind action; below, the configured providers, browsed through their registered source view.
// A failure of the external parts is a local, non-blocking notice.
import { createElement, useState } from "react";
import type { ExternalProviderStatus, ExternalRefBinding } from "@/components/api/types";
import { useT } from "@/components/i18n/locale-store";
import { ProviderBadge } from "@/components/sources/provider-badge";
import { bindingKey, getKnowledgeSourceView, type BindRequest } from "@/components/sources/source-view-registry";
import { Button } from "@/components/ui/button";
import { BookIcon } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";

export interface KnowledgePanelViewProps {
  kbName: string;
  fileCount: number;
  /** Bound (or, before the first question, pending) external sources. */
  bindings: Array<ExternalRefBinding | BindRequest>;
  bindingsState: "loading" | "error" | "ready";
  pending: boolean;
  providers: ExternalProviderStatus[] | undefined;
  providersState: "loading" | "error" | "ready";
  onBind: (ref: BindRequest) => void;
  onUnbind: (ref: ExternalRefBinding | BindRequest) => void;
  actionError?: string | null;
  /** Flow gallery: start with these providers' browsers open. */
  initialBrowsing?: string[];
}

function targetLabel(t: ReturnType<typeof useT>, b: ExternalRefBinding | BindRequest): string {
  if (b.mode === "all_accessible") return t("knowledge.allAccessible");
  if (b.target_type === "knowledge_base") return t("knowledge.wholeSource");
  return `${t(b.target_type === "folder" ? "knowledge.folder" : "knowledge.document")} · ${b.target_name || (b.document_id ?? b.node_id ?? "")}`;
}

export function KnowledgePanelView(p: KnowledgePanelViewProps) {
  const t = useT();
  const [browsing, setBrowsing] = useState<Set<string>>(new Set(p.initialBrowsing ?? []));
  const bound = new Set(p.bindings.map((b) => bindingKey({ ...b, id: b.id ?? null })));
  const isBound = (ref: BindRequest) => bound.has(bindingKey(ref));
  const labelOf = (key: string) => p.providers?.find((x) => x.key === key)?.label ?? key;
  const external = p.providers?.filter((x) => !x.builtin) ?? [];

  return (
    <div data-testid="knowledge-panel" className="flex flex-col gap-4 p-4">
      <div>
        <h3 className="text-sm font-semibold text-slate-900">{t("knowledge.title")}</h3>
        <p className="mt-1 text-xs text-slate-500">{t("knowledge.hint")}</p>
      </div>
      <ul aria-label={t("knowledge.title")} className="flex flex-col gap-1.5">
        <li data-testid="knowledge-item" data-kind="builtin" className="flex items-center gap-2 rounded-lg border border-slate-200 bg-white px-3 py-2">
          <BookIcon className="shrink-0 text-indigo-600" width={16} height={16} />
          <span className="min-w-0 flex-1">
            <span className="block truncate text-sm font-medium text-slate-900">{p.kbName}</span>
            <span className="block text-xs text-slate-500">
              {t("knowledge.builtin")} · {t("knowledge.builtinFiles", { count: p.fileCount })}
            </span>
          </span>
        </li>
        {p.bindings.map((b) => (
          <li key={bindingKey({ ...b, id: b.id ?? null })} data-testid="knowledge-item" data-kind="external" data-provider={b.provider} className="flex items-center gap-2 rounded-lg border border-slate-200 bg-white px-3 py-2">
            <ProviderBadge sourceType={b.provider} label={labelOf(b.provider)} />
            <span className="min-w-0 flex-1">
              <span className="block truncate text-sm font-medium text-slate-900">{b.name || labelOf(b.provider)}</span>
              <span className="block truncate text-xs text-slate-500">
                {targetLabel(t, b)}
                {p.pending ? ` · ${t("knowledge.pending")}` : ""}
              </span>
            </span>
            <Button size="sm" variant="ghost" data-testid="unbind-button" aria-label={t("knowledge.unbind", { name: b.target_name || b.name || b.provider })} onClick={() => p.onUnbind(b)}>
              {t("knowledge.unbindLabel")}
            </Button>
          </li>
        ))}
      </ul>
      {p.bindingsState === "loading" ? (
        <p className="flex items-center gap-2 text-xs text-slate-500">
          <Spinner className="h-3 w-3" /> {t("common.loading")}
        </p>
      ) : p.bindingsState === "error" ? (
        <p role="status" data-testid="provider-notice" className="rounded bg-amber-50 px-2 py-1.5 text-xs text-amber-800">
          {t("knowledge.bindingsFailed")}
        </p>
      ) : p.bindings.length === 0 ? (
        <p className="text-xs text-slate-500">{t("knowledge.noneBound")}</p>
      ) : null}
      {p.actionError ? (
        <p role="alert" className="rounded bg-rose-50 px-2 py-1.5 text-xs text-rose-800">
          {t("knowledge.actionFailed", { message: p.actionError })}
        </p>
      ) : null}

      <section aria-label={t("knowledge.add")} className="flex flex-col gap-2">
        <h4 className="text-xs font-semibold uppercase tracking-wide text-slate-500">{t("knowledge.add")}</h4>
        {p.providersState === "loading" ? (
          <p className="flex items-center gap-2 text-xs text-slate-500">
            <Spinner className="h-3 w-3" /> {t("common.loading")}
          </p>
        ) : p.providersState === "error" ? (
          <p role="status" data-testid="provider-notice" className="rounded bg-amber-50 px-2 py-1.5 text-xs text-amber-800">
            {t("knowledge.providersFailed")}
          </p>
        ) : external.length === 0 ? (
          <p className="text-xs text-slate-500">{t("knowledge.noProviders")}</p>
        ) : (
          external.map((prov) => {
            const view = getKnowledgeSourceView(prov.key);
            const open = browsing.has(prov.key);
            const all: BindRequest = { provider: prov.key, mode: "all_accessible", id: null, target_type: "knowledge_base", name: prov.label, target_name: "" };
            return (
              <div key={prov.key} data-testid="provider-section" data-provider={prov.key} className="rounded-lg border border-slate-200 bg-slate-50 px-3 py-2">
                <div className="flex items-center gap-2">
                  <ProviderBadge sourceType={prov.key} label={prov.label} />
                  <span className="min-w-0 flex-1 truncate text-sm font-medium text-slate-800">{prov.label}</span>
                  {prov.health !== "ready" ? <span className="text-xs text-amber-700">{t(`knowledge.health.${prov.health}` as "knowledge.health.degraded")}</span> : null}
                  {view ? (
                    <Button
                      size="sm"
                      data-testid="browse-button"
                      aria-expanded={open}
                      aria-label={open ? t("knowledge.hideBrowse") : t("knowledge.browse", { name: prov.label })}
                      onClick={() => setBrowsing((s) => { const n = new Set(s); if (n.has(prov.key)) n.delete(prov.key); else n.add(prov.key); return n; })}
                    >
                      {open ? t("knowledge.hideBrowse") : t("knowledge.browseLabel")}
                    </Button>
                  ) : isBound(all) ? (
                    <span className="text-xs font-medium text-emerald-700">{t("knowledge.boundLabel")}</span>
                  ) : (
                    <Button size="sm" data-testid="bind-all-button" onClick={() => p.onBind(all)}>
                      {t("knowledge.bindAll")}
                    </Button>
                  )}
                </div>
                {!view ? <p className="mt-1 text-xs text-slate-500">{t("knowledge.noBrowse")}</p> : null}
                {view && open ? createElement(view, { provider: { key: prov.key, label: prov.label }, isBound, onBind: p.onBind }) : null}
              </div>
            );
          })
        )}
      </section>
    </div>
  );
}
