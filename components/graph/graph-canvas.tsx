"use client";
// The neighbourhood drawn by cytoscape.js (canvas). Loaded lazily by the Graph tab, so the
// library is fetched only when someone opens it. The canvas is for the mouse; the same nodes
// and relations are buttons in the lists beside it, which is how keyboards and screen readers
// reach them.
import { useEffect, useRef } from "react";
import cytoscape, { type Core } from "cytoscape";
import type { GraphEntity, GraphRelation } from "./graph-api";

const TYPE_COLORS: Record<string, string> = {
  person: "#0ea5e9",
  organization: "#8b5cf6",
  location: "#10b981",
  product: "#f59e0b",
  work: "#ec4899",
  position: "#64748b",
  other: "#94a3b8",
};

export interface GraphCanvasProps {
  centerId: string;
  entities: GraphEntity[];
  relations: GraphRelation[];
  selectedEntityId: string | null;
  selectedRelationId: string | null;
  label: string;
  onSelectEntity: (id: string) => void;
  onSelectRelation: (id: string) => void;
}

export function GraphCanvas(props: GraphCanvasProps) {
  const box = useRef<HTMLDivElement>(null);
  const cy = useRef<Core | null>(null);
  const handlers = useRef(props);
  // The tap handlers read the latest callbacks without re-creating the graph.
  useEffect(() => {
    handlers.current = props;
  });
  const { centerId, entities, relations, selectedEntityId, selectedRelationId } = props;

  useEffect(() => {
    if (!box.current) return;
    const maxWeight = Math.max(1, ...relations.map((r) => r.weight));
    const instance = cytoscape({
      container: box.current,
      elements: [
        ...entities.map((e) => ({ data: { id: `n:${e.id}`, entityId: e.id, label: e.name, color: TYPE_COLORS[e.type] ?? TYPE_COLORS.other, center: e.id === centerId ? 1 : 0 } })),
        ...relations.map((r) => ({
          data: { id: `e:${r.id}`, relationId: r.id, source: `n:${r.source_id}`, target: `n:${r.target_id}`, width: 1 + (5 * r.weight) / maxWeight },
        })),
      ],
      style: [
        { selector: "node", style: { "background-color": "data(color)", label: "data(label)", "font-size": 11, color: "#0f172a", "text-valign": "bottom", "text-margin-y": 4, width: 18, height: 18 } },
        { selector: "node[center = 1]", style: { width: 28, height: 28, "font-weight": "bold", "border-width": 3, "border-color": "#4f46e5" } },
        { selector: "edge", style: { width: "data(width)", "line-color": "#cbd5e1", "curve-style": "bezier" } },
        { selector: ":selected", style: { "line-color": "#4f46e5", "border-color": "#4f46e5", "border-width": 3 } },
      ],
      layout: { name: "concentric", concentric: (n: cytoscape.NodeSingular) => (n.data("center") ? 2 : 1), levelWidth: () => 1, minNodeSpacing: 30, animate: false },
      wheelSensitivity: 0.3,
      autoungrabify: false,
    });
    instance.on("tap", "node", (ev) => handlers.current.onSelectEntity(ev.target.data("entityId") as string));
    instance.on("tap", "edge", (ev) => handlers.current.onSelectRelation(ev.target.data("relationId") as string));
    cy.current = instance;
    return () => {
      instance.destroy();
      cy.current = null;
    };
  }, [centerId, entities, relations]);

  useEffect(() => {
    const c = cy.current;
    if (!c) return;
    c.elements().unselect();
    if (selectedEntityId) c.getElementById(`n:${selectedEntityId}`).select();
    if (selectedRelationId) c.getElementById(`e:${selectedRelationId}`).select();
  }, [selectedEntityId, selectedRelationId, entities, relations]);

  // Full size of a box of fixed height: cytoscape sizes its canvases from the container (and its
  // own stylesheet makes the container position: relative, so it cannot be placed absolutely).
  return <div ref={box} role="img" aria-label={props.label} data-testid="graph-canvas" className="h-full w-full overflow-hidden" />;
}
