// Source-view registry (seed 002): how a reference's source line is drawn, per source_type.
// Downstream packages register their own views at start-up; any type without one gets the
// provider-neutral plain view (name + metadata), so nothing renders as a broken link.
import type { ComponentType } from "react";
import type { SourceReference } from "@/components/api/types";

export interface SourceViewProps {
  reference: SourceReference;
}

const views = new Map<string, ComponentType<SourceViewProps>>();

export function registerSourceView(sourceType: string, view: ComponentType<SourceViewProps>): () => void {
  views.set(sourceType, view);
  return () => {
    if (views.get(sourceType) === view) views.delete(sourceType);
  };
}

export function getSourceView(sourceType: string): ComponentType<SourceViewProps> | undefined {
  return views.get(sourceType);
}

// Knowledge-entry views (seed 002 "knowledge source view registry"): what the assistant's
// knowledge entry mounts for a provider's sources, e.g. its document list. A provider with no
// registered view shows as a plain entry (name + badge) without a browse action.
export interface BindRequest {
  provider: string;
  mode: "explicit" | "all_accessible";
  id: string | null;
  target_type: "knowledge_base" | "folder" | "document";
  node_id?: string | null;
  document_id?: string | null;
  parent_id?: string | null;
  name: string;
  target_name: string;
}

export interface KnowledgeSourceViewProps {
  provider: { key: string; label: string };
  isBound: (ref: BindRequest) => boolean;
  onBind: (ref: BindRequest) => void;
}

const knowledgeViews = new Map<string, ComponentType<KnowledgeSourceViewProps>>();

export function registerKnowledgeSourceView(sourceType: string, view: ComponentType<KnowledgeSourceViewProps>): () => void {
  knowledgeViews.set(sourceType, view);
  return () => {
    if (knowledgeViews.get(sourceType) === view) knowledgeViews.delete(sourceType);
  };
}

export function getKnowledgeSourceView(sourceType: string): ComponentType<KnowledgeSourceViewProps> | undefined {
  return knowledgeViews.get(sourceType);
}

/** The normalized target key, as the server computes it (lib/assistant/external-refs.ts targetKey). */
export function bindingKey(r: Pick<BindRequest, "provider" | "mode" | "id" | "target_type" | "node_id" | "document_id">): string {
  const id = r.mode === "all_accessible" ? "" : (r.id ?? "");
  const node = r.target_type === "knowledge_base" ? "" : (r.node_id ?? "");
  const doc = r.target_type === "document" ? (r.document_id ?? "") : "";
  return [r.provider, r.mode, id, r.target_type, node, doc].join("\u001f");
}
