// Fixtures of the Graph tab for the flow gallery (no network): the sample handbook's product and
// its neighbours, as the offline extractor builds them.
import type { GraphEntity, GraphOverview, GraphPassage, Neighbourhood, RelationDetail } from "./graph-api";

const KB = "fx-kb-1";
const entity = (id: string, name: string, type: string, mention_count: number, aliases: string[] = []): GraphEntity => ({ id, knowledge_id: KB, name, type, aliases, description: "", mention_count });

export const GRAPH_ENTITIES: GraphEntity[] = [
  entity("fx-e-1", "云笺", "product", 10, ["《云笺》"]),
  entity("fx-e-2", "私有化部署", "organization", 5),
  entity("fx-e-3", "东南亚", "location", 1),
  entity("fx-e-4", "新加坡", "location", 1),
  entity("fx-e-5", "管理员", "position", 11),
  entity("fx-e-6", "云笺公司", "organization", 1),
];

export const GRAPH_HOOD: Neighbourhood = {
  center: GRAPH_ENTITIES[0]!,
  entities: GRAPH_ENTITIES,
  relations: [
    { id: "fx-r-1", source_id: "fx-e-1", target_id: "fx-e-2", relation: "co_occurs", description: "", support_count: 2, weight: 4.27 },
    { id: "fx-r-2", source_id: "fx-e-3", target_id: "fx-e-1", relation: "co_occurs", description: "", support_count: 1, weight: 2.98 },
    { id: "fx-r-3", source_id: "fx-e-1", target_id: "fx-e-4", relation: "co_occurs", description: "", support_count: 1, weight: 2.98 },
    { id: "fx-r-4", source_id: "fx-e-1", target_id: "fx-e-5", relation: "co_occurs", description: "", support_count: 1, weight: 0.99 },
  ],
};

const passage = (page: number, quote: string): GraphPassage => ({ chunk_id: `fx-c-${page}`, file_id: "file-pdf", file_name: "云笺产品手册.pdf", page_start: page, page_end: page, heading_path: "第一章 产品概述 / 1.1 产品定位", quote });

export const GRAPH_RELATION: RelationDetail = {
  relation: GRAPH_HOOD.relations[0]!,
  source: GRAPH_ENTITIES[0]!,
  target: GRAPH_ENTITIES[1]!,
  passages: [passage(2, "对于超过 500 人的组织，云笺提供私有化部署版本，支持与企业现有的统一身份认证系统对接。"), passage(5, "云笺的私有化部署版本支持 Linux 服务器上的集群部署。")],
};

const file = (id: string, name: string, graph_status: string, extra: Partial<GraphOverview["files"][number]> = {}): GraphOverview["files"][number] => ({
  id,
  name,
  status: "success",
  graph_status,
  graph_percent: graph_status === "success" || graph_status === "failed" ? 100 : 0,
  graph_tokens: 0,
  graph_error_code: null,
  graph_error_message: null,
  ...extra,
});

const FAILED_REASON = "Building the knowledge graph failed (the database was unavailable). The file is still searchable; reparse it to try again.";

export function graphOverview(status: GraphOverview["status"]): GraphOverview {
  const files =
    status === "empty"
      ? []
      : status === "building"
        ? [file("f1", "云笺产品手册.pdf", "building", { graph_percent: 40 }), file("f2", "admin-guide.md", "pending")]
        : status === "failed"
          ? [file("f1", "云笺产品手册.pdf", "failed", { graph_error_code: "INTERNAL_ERROR", graph_error_message: FAILED_REASON })]
          : status === "disabled"
            ? [file("f1", "云笺产品手册.pdf", "skipped")]
            : [file("f1", "云笺产品手册.pdf", "success"), file("f2", "admin-guide.md", "success", { graph_tokens: 0 })];
  const ready = status === "ready";
  return { enabled: status !== "disabled", model_enabled: false, model_available: false, status, entity_count: ready ? 55 : 0, relation_count: ready ? 47 : 0, files };
}
