"use client";
// The Graph tab's server data (app/v1/knowledges/[kb_id]/graph/**), through React Query.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, kbPath } from "@/components/api/http-client";

// The wire shapes are the server's own (lib/graph/wire-types.ts: types only, nothing server-only).
export type {
  EntityDetail,
  EntityView as GraphEntity,
  GraphFileView as GraphFile,
  GraphOverview,
  KnowledgeGraphStatus as GraphState,
  Neighbourhood,
  PassageView as GraphPassage,
  RelationDetail,
  RelationView as GraphRelation,
} from "@/lib/graph/wire-types";
import type { EntityDetail, EntityView as GraphEntity, GraphOverview, Neighbourhood, RelationDetail } from "@/lib/graph/wire-types";

const keys = {
  overview: (kbId: string) => ["graph", kbId, "overview"] as const,
  search: (kbId: string, q: string) => ["graph", kbId, "search", q] as const,
  hood: (kbId: string, id: string, depth: number) => ["graph", kbId, "hood", id, depth] as const,
  entity: (kbId: string, id: string) => ["graph", kbId, "entity", id] as const,
  relation: (kbId: string, id: string) => ["graph", kbId, "relation", id] as const,
};

export function useGraphOverview(kbId: string) {
  return useQuery({
    queryKey: keys.overview(kbId),
    queryFn: () => api<GraphOverview>(kbPath(kbId, "/graph")),
    // While files are being graphed the state changes on its own.
    refetchInterval: (q) => (q.state.data?.status === "building" || q.state.data?.files.some((f) => f.graph_status === "building" || f.graph_status === "pending") ? 3_000 : false),
  });
}

export function useEntitySearch(kbId: string, q: string) {
  return useQuery({
    queryKey: keys.search(kbId, q),
    queryFn: () => api<{ items: GraphEntity[] }>(kbPath(kbId, `/graph/entities?q=${encodeURIComponent(q)}&limit=20`)),
    enabled: q.trim().length > 0,
    select: (d) => d.items,
    placeholderData: keepPreviousData,
  });
}

export function useNeighbourhood(kbId: string, entityId: string | null, depth: 1 | 2) {
  return useQuery({
    queryKey: keys.hood(kbId, entityId ?? "", depth),
    queryFn: () => api<Neighbourhood>(kbPath(kbId, `/graph/entities/${encodeURIComponent(entityId!)}/neighbourhood?depth=${depth}&limit=20`)),
    enabled: !!entityId,
    placeholderData: keepPreviousData,
  });
}

export function useEntityDetail(kbId: string, entityId: string | null) {
  return useQuery({
    queryKey: keys.entity(kbId, entityId ?? ""),
    queryFn: () => api<EntityDetail>(kbPath(kbId, `/graph/entities/${encodeURIComponent(entityId!)}?limit=20`)),
    enabled: !!entityId,
  });
}

export function useRelationDetail(kbId: string, relationId: string | null) {
  return useQuery({
    queryKey: keys.relation(kbId, relationId ?? ""),
    queryFn: () => api<RelationDetail>(kbPath(kbId, `/graph/relations/${encodeURIComponent(relationId!)}?limit=10`)),
    enabled: !!relationId,
  });
}

export function useUpdateGraphSettings(kbId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { enabled?: boolean; model_enabled?: boolean }) => api<GraphOverview>(kbPath(kbId, "/graph"), { method: "PATCH", body }),
    onSuccess: (data) => {
      qc.setQueryData(keys.overview(kbId), data);
      void qc.invalidateQueries({ queryKey: ["graph", kbId] });
    },
  });
}
