import { describe, expect, it } from "vitest";
import type { SourceReference } from "@/components/api/types";
import { orderReferences } from "./citation-order";

const ref = (index: number) => ({ index, ref_id: `ref_${index}`, file_name: `f${index}.pdf` }) as SourceReference;
const refs = [1, 2, 3, 4, 5].map(ref);

describe("orderReferences", () => {
  it("puts the cited references first, numbered in citation order, and the others after them", () => {
    const o = orderReferences("Budget is 2 M [3]. Launch in May [1]. Again [3].", refs);
    expect(o.cited.map((n) => [n.reference.index, n.display])).toEqual([
      [3, 1],
      [1, 2],
    ]);
    expect(o.others.map((n) => [n.reference.index, n.display])).toEqual([
      [2, 3],
      [4, 4],
      [5, 5],
    ]);
    expect(o.displayOf.get(3)).toBe(1);
  });

  it("ignores markers that point at no reference, and keeps retrieval order when nothing is cited", () => {
    expect(orderReferences("x [9] y", refs).cited.map((n) => n.display)).toEqual([1, 2, 3, 4, 5]);
    expect(orderReferences("x [9] y", refs).others).toEqual([]);
    expect(orderReferences("", []).cited).toEqual([]);
  });
});
