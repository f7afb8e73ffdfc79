// Scoring of entity spans against labelled sentences (shared/bench/NER-README.md): exact-span and
// lenient (same coarse type, at least one shared character) precision, recall and F1, per coarse
// type and micro. Pure; used by `npm run bench:graph` and its unit test.
import type { EntityType } from "./extract-offline";

export type CoarseType = "PER" | "ORG" | "LOC" | "MISC";
export const COARSE_TYPES: readonly CoarseType[] = ["PER", "ORG", "LOC", "MISC"];

export function toCoarse(type: EntityType): CoarseType {
  if (type === "person") return "PER";
  if (type === "organization") return "ORG";
  if (type === "location") return "LOC";
  return "MISC";
}

export interface Span {
  start: number;
  end: number;
  type: string;
}

export interface Prf {
  p: number;
  r: number;
  f1: number;
  predicted: number;
  gold: number;
}

export interface NerScore {
  exact: Record<CoarseType | "micro", Prf>;
  lenient: Record<CoarseType | "micro", Prf>;
}

function prf(tpP: number, predicted: number, tpR: number, gold: number): Prf {
  const p = predicted ? tpP / predicted : 0;
  const r = gold ? tpR / gold : 0;
  return { p, r, f1: p + r ? (2 * p * r) / (p + r) : 0, predicted, gold };
}

/** rows: gold and predicted spans of each sentence. */
export function scoreNer(rows: { gold: Span[]; predicted: Span[] }[]): NerScore {
  const keys = [...COARSE_TYPES, "micro"] as const;
  const c = Object.fromEntries(keys.map((k) => [k, { pred: 0, gold: 0, exact: 0, lenP: 0, lenR: 0 }])) as Record<(typeof keys)[number], { pred: number; gold: number; exact: number; lenP: number; lenR: number }>;
  for (const { gold, predicted } of rows) {
    for (const p of predicted) {
      const k = (COARSE_TYPES as readonly string[]).includes(p.type) ? (p.type as CoarseType) : null;
      c.micro.pred++;
      if (k) c[k].pred++;
      if (!k) continue;
      if (gold.some((g) => g.type === p.type && g.start === p.start && g.end === p.end)) {
        c[k].exact++;
        c.micro.exact++;
      }
      if (gold.some((g) => g.type === p.type && g.start < p.end && p.start < g.end)) {
        c[k].lenP++;
        c.micro.lenP++;
      }
    }
    for (const g of gold) {
      const k = g.type as CoarseType;
      c.micro.gold++;
      c[k].gold++;
      if (predicted.some((p) => p.type === g.type && p.start < g.end && g.start < p.end)) {
        c[k].lenR++;
        c.micro.lenR++;
      }
    }
  }
  const exact = Object.fromEntries(keys.map((k) => [k, prf(c[k].exact, c[k].pred, c[k].exact, c[k].gold)])) as NerScore["exact"];
  const lenient = Object.fromEntries(keys.map((k) => [k, prf(c[k].lenP, c[k].pred, c[k].lenR, c[k].gold)])) as NerScore["lenient"];
  return { exact, lenient };
}
