// Maximal Marginal Relevance (pure): picks k items balancing relevance against similarity to
// what is already picked. score_i = λ·rel_i − (1−λ)·max_{j∈picked} sim(i, j).

export interface MmrItem {
  relevance: number;
  /** Token set (lexical similarity) and/or vector; vectors win when both items have one. */
  tokens?: ReadonlySet<string>;
  vector?: readonly number[] | null;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size && !b.size) return 0;
  let inter = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const t of small) if (large.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

export function similarity(a: MmrItem, b: MmrItem): number {
  if (a.vector && b.vector) return cosine(a.vector, b.vector);
  if (a.tokens && b.tokens) return jaccard(a.tokens, b.tokens);
  return 0;
}

/** Returns the indexes of the chosen items, in pick order. λ = 1 is plain relevance order. */
export function mmrSelect(items: readonly MmrItem[], k: number, lambda = 0.7): number[] {
  const picked: number[] = [];
  const maxSim = new Array<number>(items.length).fill(0);
  const left = new Set(items.map((_, i) => i));
  while (picked.length < k && left.size) {
    let best = -1;
    let bestScore = -Infinity;
    for (const i of left) {
      const s = lambda * items[i]!.relevance - (1 - lambda) * maxSim[i]!;
      if (s > bestScore || (s === bestScore && items[i]!.relevance > items[best]!.relevance)) {
        best = i;
        bestScore = s;
      }
    }
    picked.push(best);
    left.delete(best);
    for (const i of left) maxSim[i] = Math.max(maxSim[i]!, similarity(items[i]!, items[best]!));
  }
  return picked;
}
