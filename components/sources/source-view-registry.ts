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
