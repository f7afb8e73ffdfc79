"use client";
// A provider's document list in the knowledge entry: its sources, then a source's folders and
// documents, each with a bind action. Pure (props in), so the flow gallery renders it from
// fixtures; DocumentListView below feeds it from the provider's listing endpoint.
import { useState } from "react";
import { useProviderDocuments } from "@/components/api/queries";
import type { ListingItem } from "@/components/api/types";
import { useT } from "@/components/i18n/locale-store";
import type { BindRequest, KnowledgeSourceViewProps } from "@/components/sources/source-view-registry";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/spinner";

export interface ListingLevel {
  /** null: the provider's sources; else a source (and optionally a folder inside it). */
  source: { id: string; name: string } | null;
  folder: { id: string; name: string } | null;
}

export interface DocumentListingProps {
  provider: { key: string; label: string };
  level: ListingLevel;
  items: ListingItem[] | undefined;
  state: "loading" | "error" | "ready";
  onOpen: (level: ListingLevel) => void;
  isBound: (ref: BindRequest) => boolean;
  onBind: (ref: BindRequest) => void;
}

export function refFor(providerKey: string, level: ListingLevel, item: ListingItem | null): BindRequest {
  if (!level.source && item) {
    return { provider: providerKey, mode: "explicit", id: item.id, target_type: "knowledge_base", name: item.name, target_name: "" };
  }
  const source = level.source!;
  if (!item) return { provider: providerKey, mode: "explicit", id: source.id, target_type: "knowledge_base", name: source.name, target_name: "" };
  if (item.type === "folder") {
    return { provider: providerKey, mode: "explicit", id: source.id, target_type: "folder", node_id: item.node_id ?? item.id, parent_id: item.parent_id, name: source.name, target_name: item.name };
  }
  // Seed 002: a document binding keeps `name` as the source's name and the document's in target_name.
  return { provider: providerKey, mode: "explicit", id: source.id, target_type: "document", node_id: item.node_id, document_id: item.id, parent_id: item.parent_id, name: source.name, target_name: item.name };
}

export function DocumentListing({ provider, level, items, state, onOpen, isBound, onBind }: DocumentListingProps) {
  const t = useT();
  const bindButton = (ref: BindRequest, label: string) =>
    isBound(ref) ? (
      <span className="shrink-0 text-xs font-medium text-emerald-700">{t("knowledge.boundLabel")}</span>
    ) : (
      <Button size="sm" data-testid="bind-button" aria-label={t("knowledge.bind", { name: label })} onClick={() => onBind(ref)}>
        {t("knowledge.bindLabel")}
      </Button>
    );
  return (
    <div data-testid="source-browser" data-provider={provider.key} className="mt-2 rounded-lg border border-slate-200 bg-white p-2">
      {level.source ? (
        <div className="mb-2 flex items-center gap-2">
          <Button size="sm" variant="ghost" onClick={() => onOpen(level.folder ? { source: level.source, folder: null } : { source: null, folder: null })}>
            {t("knowledge.up")}
          </Button>
          <span className="min-w-0 flex-1 truncate text-xs font-medium text-slate-700">
            {level.source.name}
            {level.folder ? ` / ${level.folder.name}` : ""}
          </span>
          {level.folder ? null : bindButton(refFor(provider.key, level, null), level.source.name)}
        </div>
      ) : null}
      {state === "loading" ? (
        <p className="flex items-center gap-2 p-2 text-xs text-slate-500">
          <Spinner className="h-3 w-3" /> {t("common.loading")}
        </p>
      ) : state === "error" ? (
        <p role="status" data-testid="provider-notice" className="rounded bg-amber-50 px-2 py-1.5 text-xs text-amber-800">
          {t("knowledge.providerFailed", { name: provider.label })}
        </p>
      ) : !items?.length ? (
        <p className="p-2 text-xs text-slate-500">{t("knowledge.emptyListing")}</p>
      ) : (
        <ul className="flex flex-col gap-1">
          {items.map((item) => (
            <li key={`${item.type}:${item.id}`} data-testid="listing-item" data-type={item.type} className="flex items-center gap-2 rounded px-1.5 py-1 hover:bg-slate-50">
              {item.type === "document" ? (
                <span className="min-w-0 flex-1 truncate text-sm text-slate-800">{item.name}</span>
              ) : (
                <button
                  type="button"
                  aria-label={item.type === "folder" ? t("knowledge.openFolder", { name: item.name }) : t("knowledge.browse", { name: item.name })}
                  onClick={() =>
                    onOpen(item.type === "folder" ? { source: level.source, folder: { id: item.id, name: item.name } } : { source: { id: item.id, name: item.name }, folder: null })
                  }
                  className="min-w-0 flex-1 truncate text-left text-sm font-medium text-indigo-700 hover:underline"
                >
                  {item.name}
                </button>
              )}
              <span className="shrink-0 text-[11px] text-slate-500">
                {t(item.type === "folder" ? "knowledge.folder" : item.type === "document" ? "knowledge.document" : "knowledge.wholeSource")}
              </span>
              {bindButton(refFor(provider.key, level, item), item.name)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The registered knowledge-entry view for providers with list_documents: live listing pages. */
export function DocumentListView({ provider, isBound, onBind }: KnowledgeSourceViewProps) {
  const [level, setLevel] = useState<ListingLevel>({ source: null, folder: null });
  const q = useProviderDocuments(provider.key, level.source?.id ?? null, level.folder?.id ?? null);
  return (
    <DocumentListing
      provider={provider}
      level={level}
      items={q.data?.items}
      state={q.isError ? "error" : q.isPending ? "loading" : "ready"}
      onOpen={setLevel}
      isBound={isBound}
      onBind={onBind}
    />
  );
}
