// References shown vs. cited: an answer that cites [3] and [1] out of eight retrieved passages
// lists those two first, numbered in the order the answer cites them (so the first marker a
// reader meets is 1), and the passages it does not cite apart, collapsed. The API keeps the
// retrieval order and numbering (`index`); this is only how the UI numbers them. Pure.
import type { SourceReference } from "@/components/api/types";
import { markerIndexes } from "./markers";

export interface NumberedReference {
  reference: SourceReference;
  /** The number the UI shows for this reference (in the answer's markers and on its card). */
  display: number;
}

export interface OrderedReferences {
  cited: NumberedReference[];
  others: NumberedReference[];
  /** Reference `index` → displayed number. */
  displayOf: ReadonlyMap<number, number>;
}

export function orderReferences(content: string, references: SourceReference[]): OrderedReferences {
  const byIndex = new Map(references.map((r) => [r.index, r]));
  const citedIndexes = markerIndexes(content).filter((i) => byIndex.has(i));
  // Nothing cited (references only, or stopped before any text): the retrieval order stands.
  if (citedIndexes.length === 0) {
    const all = [...references].sort((a, b) => a.index - b.index).map((reference, i) => ({ reference, display: i + 1 }));
    return { cited: all, others: [], displayOf: new Map(all.map((n) => [n.reference.index, n.display])) };
  }
  const cited = citedIndexes.map((i, k) => ({ reference: byIndex.get(i)!, display: k + 1 }));
  const citedSet = new Set(citedIndexes);
  const others = [...references]
    .filter((r) => !citedSet.has(r.index))
    .sort((a, b) => a.index - b.index)
    .map((reference, k) => ({ reference, display: cited.length + k + 1 }));
  const displayOf = new Map([...cited, ...others].map((n) => [n.reference.index, n.display]));
  return { cited, others, displayOf };
}
