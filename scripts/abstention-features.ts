// Abstention features in memory (a measuring tool, like lexical-replica.ts): indexes the even or
// odd half of a set's documents (titles as heading path), asks the questions whose evidence is all
// in the indexed half (answerable) or all in the other (unanswerable), and computes the query-level
// features the answerability model sees from the best lexical candidate (BM25 k1 0.9 b 0.4 +
// heading bonus, as retrieve()), plus candidate features. Reports, per feature set, how far a
// logistic fit separates the two groups: abstention at the score that wrongly refuses 3 % of the
// answerable questions, fitted on one half and tested on the other.
//
//   node --import tsx scripts/abstention-features.ts ../shared/bench/scifact-train ../shared/bench/cmrc2018-sent
import { readFileSync } from "node:fs";
import path from "node:path";
import { tokenize } from "@/lib/retrieval/text/tokenize";

interface Doc { id: string; title: string; text: string }
const readJsonl = <T>(f: string) => readFileSync(f, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as T);
const tokCache = new Map<string, string[]>();
const tok = (s: string) => { let t = tokCache.get(s); if (!t) tokCache.set(s, (t = tokenize(s))); return t; };
const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
type Row = Record<string, number> & { answerable: number; half: number };

function rowsFor(dir: string): Row[] {
  const docs = readJsonl<Doc>(path.join(dir, "corpus.jsonl"));
  const qrels = new Map<string, string[]>();
  for (const line of readFileSync(path.join(dir, "qrels.tsv"), "utf8").split("\n").slice(1)) {
    const [q, d, s] = line.split("\t");
    if (!q || !d || Number(s ?? 1) <= 0) continue;
    (qrels.get(q) ?? qrels.set(q, []).get(q)!).push(d);
  }
  const queries = readJsonl<{ id: string; text: string }>(path.join(dir, "queries.jsonl")).filter((q) => qrels.has(q.id));
  const sentence = docs.every((d) => /-s\d+$/.test(d.id));
  const art = (id: string) => (sentence ? id.replace(/-s\d+$/, "") : id);
  const arts = [...new Set(docs.map((d) => art(d.id)))];
  const out: Row[] = [];
  for (const half of [0, 1]) {
    const inKb = new Set(arts.filter((_, i) => i % 2 === half));
    const sub = docs.filter((d) => inKb.has(art(d.id)));
    const toks = sub.map((d) => [...tok(d.title), ...tok(d.text)]);
    const heads = sub.map((d) => new Set(tok(d.title)));
    const tfs = toks.map((ts) => { const m = new Map<string, number>(); for (const t of ts) m.set(t, (m.get(t) ?? 0) + 1); return m; });
    const post = new Map<string, number[]>();
    tfs.forEach((m, i) => { for (const t of m.keys()) (post.get(t) ?? post.set(t, []).get(t)!).push(i); });
    const N = sub.length;
    const avg = toks.reduce((s, t) => s + t.length, 0) / N;
    for (const q of queries) {
      const rel = qrels.get(q.id)!.map(art);
      const answerable = rel.every((a) => inKb.has(a)) ? 1 : rel.every((a) => !inKb.has(a)) ? 0 : -1;
      if (answerable < 0) continue;
      const qtf = new Map<string, number>();
      for (const t of tok(q.text)) qtf.set(t, (qtf.get(t) ?? 0) + 1);
      const terms = [...qtf].map(([t, f]) => { const df = post.get(t)?.length ?? 0; return { t, df, w: f * idf(N, df), e: f * idf(N, Math.max(df, 1)) }; });
      const mass = terms.reduce((s, x) => s + x.e, 0);
      if (!(mass > 0)) continue;
      const score = new Map<number, number>();
      for (const x of terms) for (const d of post.get(x.t) ?? []) {
        const tf = tfs[d]!.get(x.t)!;
        score.set(d, (score.get(d) ?? 0) + x.w * ((tf * 1.9) / (tf + 0.9 * (0.6 + (0.4 * toks[d]!.length) / avg))));
      }
      const cands = [...score].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([d, s]) => {
        let h = 0;
        for (const x of terms) if (heads[d]!.has(x.t)) h += x.e;
        return { d, raw: s + 0.25 * h, head: h };
      }).sort((a, b) => b.raw - a.raw);
      const best = cands[0];
      const f: Row = { answerable, half, coverage: 0, matchedShare: 0, absentShare: 0, headingShare: 0, secondCoverage: 0, margin: 0, rareMatched: 0, titleOnly: 0 } as Row;
      f.absentShare = terms.filter((x) => x.df === 0).reduce((s, x) => s + x.e, 0) / mass;
      if (best) {
        const set = tfs[best.d]!;
        f.coverage = best.raw / mass;
        f.matchedShare = terms.filter((x) => set.has(x.t)).reduce((s, x) => s + x.e, 0) / mass;
        f.headingShare = best.head / mass;
        f.secondCoverage = (cands[1]?.raw ?? 0) / mass;
        f.margin = f.coverage - f.secondCoverage;
        // share of the query's weight in terms rarer than 1 % of the KB that the best chunk holds
        const rare = terms.filter((x) => x.df > 0 && x.df < N / 100);
        const rm = rare.reduce((s, x) => s + x.e, 0);
        f.rareMatched = rm > 0 ? rare.filter((x) => set.has(x.t)).reduce((s, x) => s + x.e, 0) / rm : 0;
        // the best heading's share over all heads in the pool: does the title single this chunk out?
        const maxHead = Math.max(...cands.map((c) => c.head));
        f.titleOnly = maxHead > 0 ? cands.filter((c) => c.head >= maxHead * 0.999).length : 0;
      }
      out.push(f);
    }
  }
  return out;
}

const sig = (z: number) => 1 / (1 + Math.exp(-z));
function fit(rows: Row[], feats: string[]): number[] {
  // gradient descent on the logistic loss (small ridge), features as given
  let w = new Array(feats.length + 1).fill(0);
  const X = rows.map((r) => [1, ...feats.map((k) => r[k]!)]);
  for (let it = 0; it < 3000; it++) {
    const g = new Array(w.length).fill(0);
    X.forEach((x, i) => { const p = sig(x.reduce((s, v, j) => s + v * w[j]!, 0)); x.forEach((v, j) => (g[j] += (p - rows[i]!.answerable) * v)); });
    w = w.map((v, j) => v - (0.5 * (g[j] / rows.length + 0.001 * v)));
  }
  return w;
}
function abstainAt3(rows: Row[], feats: string[], w: number[]) {
  const s = (r: Row) => [1, ...feats.map((k) => r[k]!)].reduce((a, v, j) => a + v * w[j]!, 0);
  const ans = rows.filter((r) => r.answerable).map(s).sort((a, b) => a - b);
  const thr = ans[Math.floor(0.03 * ans.length)]!;
  const un = rows.filter((r) => !r.answerable).map(s);
  return un.filter((x) => x < thr).length / un.length;
}
const sets = process.argv.slice(2).map((d) => ({ name: path.basename(d), rows: rowsFor(d) }));
const featureSets = [
  ["coverage", "matchedShare", "absentShare"],
  ["coverage", "matchedShare", "absentShare", "headingShare"],
  ["coverage", "matchedShare", "absentShare", "margin"],
  ["coverage", "matchedShare", "absentShare", "rareMatched"],
  ["coverage", "matchedShare", "absentShare", "headingShare", "margin", "rareMatched"],
];
for (const fs of featureSets) {
  const parts: string[] = [];
  for (const s of sets) {
    for (const h of [0, 1]) {
      const train = s.rows.filter((r) => r.half !== h);
      const test = s.rows.filter((r) => r.half === h);
      parts.push(`${s.name} test ${h}: ${(100 * abstainAt3(test, fs, fit(train, fs))).toFixed(1)}%`);
    }
  }
  console.log(`${fs.join("+").padEnd(70)} ${parts.join("  ")}`);
}
// how the groups differ, feature by feature (medians)
for (const s of sets) for (const k of ["coverage", "matchedShare", "absentShare", "headingShare", "margin", "rareMatched"]) {
  const med = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(3);
  console.log(`${s.name} ${k}: answerable ${med(s.rows.filter((r) => r.answerable).map((r) => r[k]!))} unanswerable ${med(s.rows.filter((r) => !r.answerable).map((r) => r[k]!))}`);
}
