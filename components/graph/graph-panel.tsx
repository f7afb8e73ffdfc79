"use client";
// The Graph tab with server data: search (debounced), neighbourhood, details, settings. A
// passage opens through the source opener registry, like a reference card does, so it lands in
// the document viewer at its page with the quote highlighted.
import { useEffect, useState } from "react";
import { isApiError } from "@/components/api/http-client";
import { KNOWLEDGE_SOURCE_TYPE } from "@/components/sources/builtin-openers";
import { openSource } from "@/components/sources/opener-registry";
import { useEntityDetail, useEntitySearch, useGraphOverview, useNeighbourhood, useRelationDetail, useUpdateGraphSettings, type GraphPassage } from "./graph-api";
import { GraphView, type GraphSelection } from "./graph-view";

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setV(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return v;
}

export function GraphPanel({ kbId, canWrite }: { kbId: string; canWrite: boolean }) {
  const overview = useGraphOverview(kbId);
  const [query, setQuery] = useState("");
  const q = useDebounced(query.trim(), 250);
  const search = useEntitySearch(kbId, q);
  const [centerId, setCenterId] = useState<string | null>(null);
  const [depth, setDepth] = useState<1 | 2>(1);
  const [selection, setSelection] = useState<GraphSelection>(null);
  const hood = useNeighbourhood(kbId, centerId, depth);
  const entity = useEntityDetail(kbId, selection?.kind === "entity" ? selection.id : null);
  const relation = useRelationDetail(kbId, selection?.kind === "relation" ? selection.id : null);
  const settings = useUpdateGraphSettings(kbId);

  const openPassage = (p: GraphPassage) => {
    void openSource(
      {
        ref_id: `graph_${p.chunk_id}`,
        index: 0,
        file_id: p.file_id,
        file_name: p.file_name,
        page_start: p.page_start,
        page_end: p.page_end,
        heading_path: p.heading_path,
        quote: p.quote,
        score: null,
        chunk_id: p.chunk_id,
        source_type: KNOWLEDGE_SOURCE_TYPE,
        source_id: kbId,
        source_uri: null,
        source_name: null,
      },
      { knowledgeId: kbId },
    );
  };

  const errorOf = (e: unknown) => (isApiError(e) ? e.message : String(e));
  return (
    <GraphView
      overview={overview.data}
      overviewError={overview.isError ? errorOf(overview.error) : null}
      canWrite={canWrite}
      query={query}
      onQueryChange={setQuery}
      results={q ? search.data : undefined}
      searching={search.isFetching}
      centerId={centerId}
      onCenter={(id) => {
        setCenterId(id);
        setSelection({ kind: "entity", id });
      }}
      depth={depth}
      onDepthChange={setDepth}
      hood={centerId ? hood.data : undefined}
      selection={selection}
      onSelect={setSelection}
      entityDetail={entity.data}
      relationDetail={relation.data}
      detailLoading={(selection?.kind === "entity" && entity.isPending) || (selection?.kind === "relation" && relation.isPending)}
      onOpenPassage={openPassage}
      onSettings={(s) => settings.mutate(s)}
      settingsBusy={settings.isPending}
    />
  );
}
