"use client";
// The Graph tab's view, fed by props (GraphPanel with server data, the flow gallery with
// fixtures): search, the neighbourhood as a graph plus keyboard-reachable lists, the selected
// entity's mentions or relation's passages, and the empty / building / failed / disabled states.
import dynamic from "next/dynamic";
import { useId, type ReactNode } from "react";
import { useT } from "@/components/i18n/locale-store";
import { Badge } from "@/components/ui/badge";
import { Button, focusRing } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { EmptyState } from "@/components/ui/empty-state";
import { AlertIcon, FileIcon, SparkIcon } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";
import type { EntityDetail, GraphEntity, GraphOverview, GraphPassage, Neighbourhood, RelationDetail } from "./graph-api";

// cytoscape is loaded only when a neighbourhood is shown (it is ~400 KB of script).
const GraphCanvas = dynamic(() => import("./graph-canvas").then((m) => m.GraphCanvas), {
  ssr: false,
  loading: () => <CanvasLoading />,
});

function CanvasLoading() {
  const t = useT();
  return (
    <div className="flex h-full items-center justify-center text-slate-500">
      <Spinner label={t("graph.loadingCanvas")} />
    </div>
  );
}

export type GraphSelection = { kind: "entity"; id: string } | { kind: "relation"; id: string } | null;

export interface GraphViewProps {
  overview: GraphOverview | undefined;
  overviewError: string | null;
  canWrite: boolean;
  query: string;
  onQueryChange: (q: string) => void;
  results: GraphEntity[] | undefined;
  searching: boolean;
  centerId: string | null;
  onCenter: (id: string) => void;
  depth: 1 | 2;
  onDepthChange: (d: 1 | 2) => void;
  hood: Neighbourhood | undefined;
  selection: GraphSelection;
  onSelect: (s: GraphSelection) => void;
  entityDetail: EntityDetail | undefined;
  relationDetail: RelationDetail | undefined;
  detailLoading: boolean;
  onOpenPassage: (p: GraphPassage) => void;
  onSettings: (s: { enabled?: boolean; model_enabled?: boolean }) => void;
  settingsBusy: boolean;
}

function TypeBadge({ type }: { type: string }) {
  const t = useT();
  const key = `graph.type.${type}` as Parameters<typeof t>[0];
  const known = ["person", "organization", "location", "product", "work", "position", "other"].includes(type);
  return <Badge tone="neutral">{known ? t(key) : type}</Badge>;
}

export function GraphView(p: GraphViewProps) {
  const t = useT();
  const searchId = useId();
  const o = p.overview;

  if (p.overviewError) {
    return (
      <p role="alert" className="m-6 rounded-xl bg-rose-50 px-4 py-3 text-sm text-rose-800">
        {t("graph.loadFailed", { message: p.overviewError })}
      </p>
    );
  }
  if (!o) {
    return (
      <div className="flex flex-1 items-center justify-center text-slate-500">
        <Spinner label={t("common.loading")} />
      </div>
    );
  }

  const failedFiles = o.files.filter((f) => f.graph_status === "failed");
  const buildingFiles = o.files.filter((f) => f.graph_status === "building" || (f.graph_status === "pending" && f.status !== "failed"));
  const tokens = o.files.reduce((n, f) => n + f.graph_tokens, 0);

  const settings = (
    <div className="flex flex-wrap items-center gap-3 text-xs text-slate-600">
      <span data-testid="graph-stats">{t("graph.stats", { entities: o.entity_count, relations: o.relation_count })}</span>
      {tokens > 0 ? <span>{t("graph.tokens", { tokens })}</span> : null}
      {p.canWrite && o.enabled ? (
        <>
          <label className={cx("inline-flex items-center gap-1.5", !o.model_available && "opacity-60")}>
            <input
              type="checkbox"
              data-testid="graph-model-toggle"
              checked={o.model_enabled}
              disabled={!o.model_available || p.settingsBusy}
              onChange={(e) => p.onSettings({ model_enabled: e.target.checked })}
            />
            {o.model_available ? t("graph.modelExtractor") : t("graph.modelUnavailable")}
          </label>
          <Button variant="ghost" size="sm" data-testid="graph-disable" disabled={p.settingsBusy} onClick={() => p.onSettings({ enabled: false })}>
            {t("graph.disable")}
          </Button>
        </>
      ) : null}
    </div>
  );

  let body: ReactNode;
  if (o.status === "disabled") {
    body = (
      <EmptyState
        testId="graph-disabled"
        icon={<SparkIcon width={20} height={20} />}
        title={t("graph.disabled")}
        hint={t("graph.disabledHint")}
        action={
          p.canWrite ? (
            <Button variant="primary" size="sm" data-testid="graph-enable" disabled={p.settingsBusy} onClick={() => p.onSettings({ enabled: true })}>
              {t("graph.enable")}
            </Button>
          ) : undefined
        }
      />
    );
  } else if (o.status === "empty") {
    body = <EmptyState testId="graph-empty" icon={<SparkIcon width={20} height={20} />} title={t("graph.empty")} hint={t("graph.emptyHint")} />;
  } else if (o.status === "building" && o.entity_count === 0) {
    body = (
      <div data-testid="graph-building" className="flex flex-col items-center gap-3 px-6 py-10 text-center" role="status">
        <Spinner label={t("graph.building")} />
        <p className="max-w-sm text-sm text-slate-500">{t("graph.buildingHint")}</p>
        <ul className="text-xs text-slate-500">
          {buildingFiles.map((f) => (
            <li key={f.id}>{t("graph.fileProgress", { name: f.name, percent: f.graph_percent })}</li>
          ))}
        </ul>
      </div>
    );
  } else if (o.status === "failed") {
    body = (
      <div data-testid="graph-failed" className="flex flex-col items-center gap-2 px-6 py-10 text-center">
        <div className="mb-1 rounded-full bg-rose-50 p-3 text-rose-600">
          <AlertIcon width={20} height={20} />
        </div>
        <p className="text-sm font-medium text-slate-800">{t("graph.failed")}</p>
        <p className="max-w-md text-sm text-slate-500">{t("graph.failedHint")}</p>
        <FailedList files={failedFiles} />
      </div>
    );
  } else {
    body = <ReadyBody {...p} searchId={searchId} />;
  }

  return (
    <div data-testid="graph-panel" data-status={o.status} className="flex min-h-0 flex-1 flex-col overflow-y-auto">
      <div className="flex flex-wrap items-center gap-3 border-b border-slate-200 bg-white px-4 py-2 sm:px-6">{settings}</div>
      {o.status === "building" && o.entity_count > 0 ? (
        <p role="status" className="mx-4 mt-3 rounded-lg bg-sky-50 px-3 py-2 text-xs text-sky-800 sm:mx-6">
          {t("graph.buildingSome")}
        </p>
      ) : null}
      {o.status === "ready" && failedFiles.length > 0 ? (
        <div className="mx-4 mt-3 rounded-lg bg-amber-50 px-3 py-2 text-xs text-amber-900 sm:mx-6">
          <FailedList files={failedFiles} />
        </div>
      ) : null}
      {body}
    </div>
  );
}

function FailedList({ files }: { files: GraphOverview["files"] }) {
  const t = useT();
  return (
    <ul data-testid="graph-failed-files" className="space-y-1 text-left text-xs">
      {files.map((f) => (
        <li key={f.id}>{t("graph.fileFailed", { name: f.name, reason: f.graph_error_message ?? f.graph_error_code ?? "" })}</li>
      ))}
    </ul>
  );
}

function ReadyBody(p: GraphViewProps & { searchId: string }) {
  const t = useT();
  const hood = p.hood;
  const names = new Map((hood?.entities ?? []).map((e) => [e.id, e.name]));
  const sortedRelations = [...(hood?.relations ?? [])].sort((a, b) => b.weight - a.weight);
  return (
    // Sized by its own width (a container query): the workspace's middle column is narrow beside
    // the KB list and the assistant, the flow gallery's card wide.
    <div className="@container min-h-0 flex-1">
      <div className="grid grid-cols-1 gap-4 p-4 sm:p-6 @3xl:grid-cols-[14rem_minmax(0,1fr)] @6xl:grid-cols-[14rem_minmax(0,1fr)_20rem]">
        <section aria-labelledby={`${p.searchId}-results`} className="flex min-w-0 flex-col gap-2">
          <label htmlFor={p.searchId} className="text-xs font-medium text-slate-700">
            {t("graph.searchLabel")}
          </label>
          <input
            id={p.searchId}
            type="search"
            data-testid="graph-search"
            value={p.query}
            maxLength={100}
            placeholder={t("graph.searchPlaceholder")}
            onChange={(e) => p.onQueryChange(e.target.value)}
            className={cx("rounded-lg border border-slate-300 px-3 py-1.5 text-sm", focusRing)}
          />
          <label className="flex items-center gap-2 text-xs text-slate-600">
            {t("graph.depth")}
            <select data-testid="graph-depth" value={p.depth} onChange={(e) => p.onDepthChange(e.target.value === "2" ? 2 : 1)} className={cx("rounded border border-slate-300 px-1 py-0.5", focusRing)}>
              <option value={1}>{t("graph.depth1")}</option>
              <option value={2}>{t("graph.depth2")}</option>
            </select>
          </label>
          <h3 id={`${p.searchId}-results`} className="mt-2 text-xs font-semibold uppercase tracking-wide text-slate-500">
            {t("graph.results")}
          </h3>
          {!p.query.trim() ? (
            <p className="text-xs text-slate-500">{t("graph.searchHint")}</p>
          ) : p.searching && !p.results ? (
            <Spinner label={t("common.loading")} />
          ) : p.results && p.results.length === 0 ? (
            <p className="text-xs text-slate-500">{t("graph.noResults", { q: p.query.trim() })}</p>
          ) : (
            <ul data-testid="graph-results" className="space-y-1">
              {(p.results ?? []).map((e) => (
                <li key={e.id}>
                  <button
                    type="button"
                    data-testid="graph-result"
                    aria-pressed={p.centerId === e.id}
                    onClick={() => p.onCenter(e.id)}
                    className={cx("flex w-full items-center justify-between gap-2 rounded-lg px-2 py-1.5 text-left text-sm hover:bg-slate-100", focusRing, p.centerId === e.id && "bg-indigo-50 text-indigo-800")}
                  >
                    <span className="truncate">{e.name}</span>
                    <span className="shrink-0 text-xs text-slate-700">{t("graph.mentions", { count: e.mention_count })}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>

        <section className="flex min-w-0 flex-col gap-3">
          {hood ? (
            <>
              <div className="h-[320px] min-w-0 rounded-xl border border-slate-200 bg-white">
                <GraphCanvas
                  centerId={hood.center.id}
                  entities={hood.entities}
                  relations={hood.relations}
                  selectedEntityId={p.selection?.kind === "entity" ? p.selection.id : null}
                  selectedRelationId={p.selection?.kind === "relation" ? p.selection.id : null}
                  label={t("graph.canvasLabel", { name: hood.center.name, nodes: hood.entities.length, edges: hood.relations.length })}
                  onSelectEntity={(id) => p.onSelect({ kind: "entity", id })}
                  onSelectRelation={(id) => p.onSelect({ kind: "relation", id })}
                />
              </div>
              <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">{t("graph.relations")}</h3>
              {sortedRelations.length === 0 ? (
                <p className="text-sm text-slate-500">{t("graph.noRelations")}</p>
              ) : (
                <ul data-testid="graph-relations" className="space-y-1">
                  {sortedRelations.map((r) => (
                    <li key={r.id}>
                      <button
                        type="button"
                        data-testid="graph-relation"
                        aria-pressed={p.selection?.kind === "relation" && p.selection.id === r.id}
                        onClick={() => p.onSelect({ kind: "relation", id: r.id })}
                        className={cx("flex w-full flex-wrap items-center justify-between gap-x-3 rounded-lg px-2 py-1.5 text-left text-sm hover:bg-slate-100", focusRing, p.selection?.kind === "relation" && p.selection.id === r.id && "bg-indigo-50")}
                      >
                        <span>
                          {t("graph.relationItem", { source: names.get(r.source_id) ?? "?", target: names.get(r.target_id) ?? "?" })}
                          {r.relation !== "co_occurs" ? <span className="ml-1 text-xs text-slate-600">({r.relation})</span> : null}
                        </span>
                        <span className="text-xs text-slate-700">{t("graph.weight", { weight: r.weight.toFixed(2), count: r.support_count })}</span>
                      </button>
                    </li>
                  ))}
                </ul>
              )}
              <div className="flex flex-wrap gap-1">
                {hood.entities
                  .filter((e) => e.id !== hood.center.id)
                  .map((e) => (
                    <button
                      key={e.id}
                      type="button"
                      data-testid="graph-node"
                      onClick={() => p.onSelect({ kind: "entity", id: e.id })}
                      className={cx("rounded-full border border-slate-200 px-2 py-0.5 text-xs hover:bg-slate-100", focusRing)}
                    >
                      {e.name}
                    </button>
                  ))}
              </div>
            </>
          ) : (
            <EmptyState icon={<SparkIcon width={20} height={20} />} title={t("graph.searchHint")} />
          )}
        </section>

        <aside aria-live="polite" data-testid="graph-detail" className="flex min-w-0 flex-col gap-2 @3xl:col-span-2 @6xl:col-span-1">
          <Detail {...p} />
        </aside>
      </div>
    </div>
  );
}

function Detail(p: GraphViewProps) {
  const t = useT();
  if (!p.selection) return <p className="text-xs text-slate-500">{t("graph.selectHint")}</p>;
  if (p.detailLoading) return <Spinner label={t("common.loading")} />;
  if (p.selection.kind === "entity" && p.entityDetail) {
    const e = p.entityDetail.entity;
    return (
      <>
        <div className="flex flex-wrap items-center gap-2">
          <h3 className="text-sm font-semibold text-slate-900">{t("graph.entityMentions", { name: e.name })}</h3>
          <TypeBadge type={e.type} />
        </div>
        {e.aliases.length ? <p className="text-xs text-slate-500">{t("graph.aliases", { aliases: e.aliases.join("、") })}</p> : null}
        {e.description ? <p className="text-xs text-slate-600">{e.description}</p> : null}
        <PassageList passages={p.entityDetail.mentions} onOpen={p.onOpenPassage} />
      </>
    );
  }
  if (p.selection.kind === "relation" && p.relationDetail) {
    const d = p.relationDetail;
    return (
      <>
        <h3 className="text-sm font-semibold text-slate-900">{t("graph.relationPassages", { source: d.source.name, target: d.target.name })}</h3>
        {d.relation.description ? <p className="text-xs text-slate-600">{d.relation.description}</p> : null}
        <PassageList passages={d.passages} onOpen={p.onOpenPassage} />
      </>
    );
  }
  return null;
}

function PassageList({ passages, onOpen }: { passages: GraphPassage[]; onOpen: (p: GraphPassage) => void }) {
  const t = useT();
  return (
    <ul data-testid="graph-passages" className="space-y-2">
      {passages.map((ps) => (
        <li key={ps.chunk_id} className="rounded-lg border border-slate-200 bg-white p-2">
          <button
            type="button"
            data-testid="graph-passage-open"
            aria-label={ps.page_start ? t("graph.openPassage", { file: ps.file_name, page: ps.page_start }) : t("graph.openPassageNoPage", { file: ps.file_name })}
            onClick={() => onOpen(ps)}
            className={cx("flex w-full items-center gap-1.5 text-left text-xs font-medium text-indigo-700 hover:underline", focusRing)}
          >
            <FileIcon width={14} height={14} />
            <span className="truncate">{ps.file_name}</span>
            {ps.page_start ? <span className="shrink-0 text-slate-500">· {t("graph.page", { page: ps.page_start })}</span> : null}
          </button>
          {ps.heading_path ? <p className="mt-0.5 truncate text-[0.7rem] text-slate-500">{ps.heading_path}</p> : null}
          <p className="mt-1 text-xs leading-relaxed text-slate-700">{ps.quote}</p>
        </li>
      ))}
    </ul>
  );
}
