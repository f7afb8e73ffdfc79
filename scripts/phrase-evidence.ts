// Phrase and passage evidence of a chunk for a query (pure; measuring tools only — the product's
// answerability model does not use them: docs/benchmarks-retrieval.md, "Twelfth session: English
// abstention"). Shared by scripts/abstention-features.ts (in memory) and scripts/bench-retrieval.ts
// (the real retrieve() hits), so both measure the same thing.

/** Positions of each term in an ordered token list (a chunk's tokens as the index stores them). */
export function positions(tokens: readonly string[]): Map<string, number[]> {
  const m = new Map<string, number[]>();
  tokens.forEach((t, i) => (m.get(t) ?? m.set(t, []).get(t)!).push(i));
  return m;
}

/**
 * Largest weight of distinct query terms inside any window of `w` consecutive chunk tokens: how
 * much of the query one passage of the chunk holds (proximity), against the whole chunk's share.
 */
export function windowMass(pos: Map<string, number[]>, weight: ReadonlyMap<string, number>, w: number): number {
  const events: [number, string][] = [];
  for (const [t, ps] of pos) if (weight.has(t)) for (const p of ps) events.push([p, t]);
  events.sort((a, b) => a[0] - b[0]);
  const count = new Map<string, number>();
  let mass = 0;
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < events.length; hi++) {
    const [p, t] = events[hi]!;
    const c = count.get(t) ?? 0;
    if (c === 0) mass += weight.get(t)!;
    count.set(t, c + 1);
    while (events[lo]![0] <= p - w) {
      const tl = events[lo]![1];
      const cl = count.get(tl)! - 1;
      count.set(tl, cl);
      if (cl === 0) mass -= weight.get(tl)!;
      lo++;
    }
    best = Math.max(best, mass);
  }
  return best;
}

/**
 * Ordered term pairs of the query (q_i before q_j, at most `maxSpan` tokens apart, both terms in
 * `weight`), each weighing the smaller of its two weights; the share of that weight whose pair the
 * chunk holds in the same order within `gap` tokens. gap 1, maxSpan 1 = the query's two-word
 * terms repeated verbatim (stop words are not tokens, so "rate of X" matches "rate X").
 */
export function pairShare(query: readonly string[], pos: Map<string, number[]>, weight: ReadonlyMap<string, number>, gap: number, maxSpan: number): number {
  let total = 0;
  let hit = 0;
  for (let i = 0; i < query.length; i++) {
    for (let j = i + 1; j < query.length && j - i <= maxSpan; j++) {
      const a = query[i]!;
      const b = query[j]!;
      if (a === b || !weight.has(a) || !weight.has(b)) continue;
      const w = Math.min(weight.get(a)!, weight.get(b)!);
      total += w;
      const pa = pos.get(a);
      const pb = pos.get(b);
      if (!pa || !pb) continue;
      let k = 0;
      for (const x of pa) {
        while (k < pb.length && pb[k]! <= x) k++;
        if (k < pb.length && pb[k]! - x <= gap) {
          hit += w;
          break;
        }
      }
    }
  }
  return total > 0 ? hit / total : 0;
}
