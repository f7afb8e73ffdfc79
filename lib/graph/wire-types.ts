// The knowledge graph's wire shapes (app/v1/knowledges/[kb_id]/graph/**): types only — no
// runtime import, nothing server-only — so lib/graph/query.ts and the Graph tab
// (components/graph/graph-api.ts) name the same shapes while components/ still reaches the
// server only over HTTP.

export interface EntityView {
  id: string;
  knowledge_id: string;
  name: string;
  type: string;
  aliases: string[];
  description: string;
  mention_count: number;
  /** How well the name matched the query (1 = exact), search results only. */
  score?: number;
}

export interface RelationView {
  id: string;
  source_id: string;
  target_id: string;
  relation: string;
  description: string;
  support_count: number;
  /** Co-occurrence weight: count × ln(1 + PMI ratio); see docs/bench-graph.md. */
  weight: number;
}

export interface PassageView {
  chunk_id: string;
  file_id: string;
  file_name: string;
  page_start: number | null;
  page_end: number | null;
  heading_path: string;
  quote: string;
}

export interface Neighbourhood {
  center: EntityView;
  entities: EntityView[];
  relations: RelationView[];
}

/** GET …/graph/entities/{entity_id}: the entity and the passages that mention it. */
export interface EntityDetail {
  entity: EntityView;
  mentions: PassageView[];
}

export interface RelationDetail {
  relation: RelationView;
  source: EntityView;
  target: EntityView;
  passages: PassageView[];
}

export type KnowledgeGraphStatus = "disabled" | "empty" | "building" | "ready" | "failed";

export interface GraphFileView {
  id: string;
  name: string;
  status: string;
  graph_status: "pending" | "building" | "success" | "failed" | "skipped" | (string & {});
  graph_percent: number;
  graph_tokens: number;
  graph_error_code: string | null;
  graph_error_message: string | null;
}

export interface GraphOverview {
  enabled: boolean;
  model_enabled: boolean;
  /** A chat model is configured, so the model extractor can run when model_enabled. */
  model_available: boolean;
  status: KnowledgeGraphStatus;
  entity_count: number;
  relation_count: number;
  files: GraphFileView[];
}
