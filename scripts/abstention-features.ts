// Abstention features in memory (a measuring tool, like lexical-replica.ts): indexes the even or
// odd half of a set's documents (titles as heading path), asks the questions whose evidence is all
// in the indexed half (answerable) or all in the other (unanswerable), and computes the query-level
// features the answerability model sees from the best lexical candidate (BM25 k1 0.9 b 0.4 +
// heading bonus, as retrieve(); no context bonus), plus candidate features the model does not use
// (yet). Reports, per feature set, how far a logistic fit separates the two groups: fitted on one
// half of EVERY set at once (each set weighing the same), τ the largest that keeps every set's
// training half ≤ 3 % wrongly refused, then tested on the other half — both directions — and the
// same for a fit on each set alone (how far a feature can carry one set).
//
//   node --import tsx scripts/abstention-features.ts ../shared/bench/scifact-train ../shared/bench/cmrc2018-sent
//   … --sets 'coverage,matchedShare,absentShare;coverage,matchedShare,absentShare,pairShare'
//   … --dump /tmp/probe.jsonl   (one line per question with every feature)
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { inverseCalibrateLexical } from "@/lib/retrieval/calibrate";
import { tokenize } from "@/lib/retrieval/text/tokenize";
import { pairShare, positions, windowMass } from "./phrase-evidence";

interface Doc { id: string; title: string; text: string }
const readJsonl = <T>(f: string) => readFileSync(f, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as T);
const tokCache = new Map<string, string[]>();
const tok = (s: string) => { let t = tokCache.get(s); if (!t) tokCache.set(s, (t = tokenize(s))); return t; };
const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
type Row = Record<string, number> & { answerable: number; half: number };

const argv = process.argv.slice(2);
const opt = (name: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : undefined; };
const dirs = argv.filter((a, i) => !a.startsWith("--") && !(i > 0 && argv[i - 1]!.startsWith("--")));

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
    // the chunk's tokens as the index stores them: heading path, then the text, in order
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
      const qTokens = tok(q.text);
      const qtf = new Map<string, number>();
      for (const t of qTokens) qtf.set(t, (qtf.get(t) ?? 0) + 1);
      const terms = [...qtf].map(([t, f]) => { const df = post.get(t)?.length ?? 0; return { t, df, w: f * idf(N, df), e: f * idf(N, Math.max(df, 1)) }; });
      const mass = terms.reduce((s, x) => s + x.e, 0);
      if (!(mass > 0)) continue;
      const present = new Map(terms.filter((x) => x.df > 0).map((x) => [x.t, x.e]));
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
      const f: Row = { answerable, half } as Row;
      // rank (1-based) of the first candidate from an evidence document (cmrc: article) among the
      // 40 candidates; 0 = not among them
      const relSet = new Set(rel);
      const gi = cands.findIndex((c) => relSet.has(art(sub[c.d]!.id)));
      f.goldRank = answerable ? (gi < 0 ? 0 : gi + 1) : 0;
      for (const k of FEATURES) f[k] = 0;
      f.absentShare = terms.filter((x) => x.df === 0).reduce((s, x) => s + x.e, 0) / mass;
      f.nTerms = terms.length;
      if (best) {
        const set = tfs[best.d]!;
        const pos = positions(toks[best.d]!);
        const sharesOf = (d: number) => terms.filter((x) => tfs[d]!.has(x.t)).reduce((s, x) => s + x.e, 0) / mass;
        f.coverage = best.raw / mass;
        f.matchedShare = sharesOf(best.d);
        f.headingShare = best.head / mass;
        f.secondCoverage = (cands[1]?.raw ?? 0) / mass;
        f.margin = f.coverage - f.secondCoverage;
        const rest = cands.slice(1, 5);
        f.gapMean = f.coverage - (rest.length ? rest.reduce((s, c) => s + c.raw, 0) / rest.length / mass : 0);
        f.ratio2 = cands[1] ? cands[1].raw / best.raw : 0;
        // how much of what the top 10 hits cover together the best one covers alone
        const union = new Set<string>();
        for (const c of cands.slice(0, 10)) for (const x of terms) if (tfs[c.d]!.has(x.t)) union.add(x.t);
        const unionMass = terms.filter((x) => union.has(x.t)).reduce((s, x) => s + x.e, 0) / mass;
        f.unionShare = unionMass;
        f.concentration = unionMass > 0 ? f.matchedShare / unionMass : 0;
        f.secondMatched = cands[1] ? sharesOf(cands[1].d) : 0;
        // ordered pairs / phrases of the query in the best chunk
        f.bigramShare = pairShare(qTokens, pos, present, 1, 1);
        f.pairAdj = pairShare(qTokens, pos, present, 1, 3); // query pairs up to 3 apart, adjacent in the chunk
        f.pair3 = pairShare(qTokens, pos, present, 3, 3);
        f.pair8 = pairShare(qTokens, pos, present, 8, 4);
        // the best-covered passage of the chunk (a window of w tokens) as a share of the query
        f.win10 = windowMass(pos, present, 10) / mass;
        f.win20 = windowMass(pos, present, 20) / mass;
        f.win40 = windowMass(pos, present, 40) / mass;
        f.winFrac20 = f.matchedShare > 0 ? f.win20 / f.matchedShare : 0;
        // rare terms: the KB holds them; does the best chunk?
        const inKbTerms = terms.filter((x) => x.df > 0).sort((a, b) => b.e - a.e);
        const missed = inKbTerms.filter((x) => !set.has(x.t));
        f.maxMissed = missed.length ? missed[0]!.e / mass : 0;
        f.rarestHeld = inKbTerms.length && set.has(inKbTerms[0]!.t) ? 1 : 0;
        const top2 = inKbTerms.slice(0, 2);
        const t2m = top2.reduce((s, x) => s + x.e, 0);
        f.rare2Held = t2m > 0 ? top2.filter((x) => set.has(x.t)).reduce((s, x) => s + x.e, 0) / t2m : 0;
        const rare = terms.filter((x) => x.df > 0 && x.df < N / 100);
        const rm = rare.reduce((s, x) => s + x.e, 0);
        f.rareMatched = rm > 0 ? rare.filter((x) => set.has(x.t)).reduce((s, x) => s + x.e, 0) / rm : 1;
        // second-best chunk's phrase evidence: is the best one singled out?
        if (cands[1]) {
          const pos2 = positions(toks[cands[1].d]!);
          f.bigramMargin = f.bigramShare - pairShare(qTokens, pos2, present, 1, 1);
          f.win20Margin = f.win20 - windowMass(pos2, present, 20) / mass;
        } else {
          f.bigramMargin = f.bigramShare;
          f.win20Margin = f.win20;
        }
        // best phrase evidence among the top 5 (another hit may hold the claim's phrases)
        f.bigramTop5 = Math.max(...cands.slice(0, 5).map((c) => pairShare(qTokens, positions(toks[c.d]!), present, 1, 1)));
        f.chunkLen = Math.log(toks[best.d]!.length);
        // the top five with their phrase / passage evidence (a rerank check: would phrases put the evidence first?)
        (f as Record<string, unknown>).top5 = cands.slice(0, 5).map((c) => {
          const p = positions(toks[c.d]!);
          return { ev: relSet.has(art(sub[c.d]!.id)) ? 1 : 0, cov: c.raw / mass, big: pairShare(qTokens, p, present, 1, 1), p3: pairShare(qTokens, p, present, 3, 3), win: windowMass(p, present, 20) / mass };
        });
      }
      out.push(f);
    }
  }
  return out;
}

const FEATURES = ["coverage", "matchedShare", "absentShare", "headingShare", "secondCoverage", "margin", "gapMean", "ratio2", "unionShare", "concentration", "secondMatched", "bigramShare", "pairAdj", "pair3", "pair8", "win10", "win20", "win40", "winFrac20", "maxMissed", "rarestHeld", "rare2Held", "rareMatched", "bigramMargin", "win20Margin", "bigramTop5", "chunkLen", "nTerms"];

const sig = (z: number) => 1 / (1 + Math.exp(-z));

/** Solves A·v = b (small dense system, Gaussian elimination with partial pivoting). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/** Logistic regression (IRLS, small ridge), every set's rows together weighing 1. */
function fit(rows: (Row & { set: string })[], feats: string[]): number[] {
  const per = new Map<string, number>();
  for (const r of rows) per.set(r.set, (per.get(r.set) ?? 0) + 1);
  const X = rows.map((r) => [1, ...feats.map((k) => r[k] ?? 0)]);
  const w = rows.map((r) => 1 / per.get(r.set)!);
  let beta = X[0]!.map(() => 0);
  for (let it = 0; it < 60; it++) {
    const h = beta.map(() => beta.map(() => 0));
    const g = beta.map(() => 0);
    X.forEach((x, i) => {
      const p = sig(x.reduce((s, v, k) => s + v * beta[k]!, 0));
      for (let a = 0; a < x.length; a++) {
        g[a]! += w[i]! * (rows[i]!.answerable - p) * x[a]!;
        for (let b = 0; b < x.length; b++) h[a]![b]! += w[i]! * p * (1 - p) * x[a]! * x[b]!;
      }
    });
    for (let a = 1; a < beta.length; a++) { h[a]![a]! += 1e-3; g[a]! -= 1e-3 * beta[a]!; }
    const step = solve(h, g);
    beta = beta.map((v, k) => v + step[k]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return beta;
}

// The product also refuses when the best hit's own calibrated score is below min_score 0.5.
const PER_HIT_MIN_COVERAGE = inverseCalibrateLexical(0.5);
const logit = (r: Row, feats: string[], b: number[]) => [1, ...feats.map((k) => r[k] ?? 0)].reduce((a, v, j) => a + v * b[j]!, 0);
const refused = (r: Row, feats: string[], b: number[], thr: number) => !((r.coverage ?? 0) > PER_HIT_MIN_COVERAGE) || logit(r, feats, b) < thr;

/** Largest threshold on the logit at which every set of `rows` refuses ≤ 3 % of its answerable questions. */
function chooseThreshold(rows: (Row & { set: string })[], feats: string[], b: number[]): number {
  let thr = Infinity;
  for (const s of new Set(rows.map((r) => r.set))) {
    const ls = rows.filter((r) => r.set === s && r.answerable && (r.coverage ?? 0) > PER_HIT_MIN_COVERAGE).map((r) => logit(r, feats, b)).sort((x, y) => x - y);
    const nAns = rows.filter((r) => r.set === s && r.answerable).length;
    const already = nAns - ls.length;
    const allowed = Math.floor(0.03 * nAns) - already;
    thr = Math.min(thr, allowed < 0 ? -Infinity : ls[Math.min(allowed, ls.length - 1)]!);
  }
  return thr;
}

function rates(rows: Row[], feats: string[], b: number[], thr: number) {
  const ans = rows.filter((r) => r.answerable);
  const un = rows.filter((r) => !r.answerable);
  return { refused: ans.filter((r) => refused(r, feats, b, thr)).length / ans.length, abstained: un.filter((r) => refused(r, feats, b, thr)).length / un.length };
}

const sets = dirs.map((d) => ({ name: path.basename(d), rows: rowsFor(d) }));
const all = sets.flatMap((s) => s.rows.map((r) => Object.assign(r, { set: s.name })));
if (opt("dump")) writeFileSync(opt("dump")!, all.map((r) => JSON.stringify(r)).join("\n") + "\n");
const pct = (v: number) => (100 * v).toFixed(1);
const featureSets = (opt("sets") ?? [
  "coverage,matchedShare,absentShare",
  ...FEATURES.filter((k) => !["coverage", "matchedShare", "absentShare"].includes(k)).map((k) => `coverage,matchedShare,absentShare,${k}`),
].join(";")).split(";").map((s) => s.split(","));

console.log(`held-out: fit on one half of ${sets.map((s) => s.name).join(" + ")} (pooled, each set weighing the same; then each set alone), threshold = the largest keeping every training set ≤ 3 % refused; cells: test-half refused / abstained %`);
for (const fs of featureSets) {
  const cells: string[] = [];
  for (const h of [0, 1]) {
    const train = all.filter((r) => r.half !== h);
    const b = fit(train, fs);
    const thr = chooseThreshold(train, fs, b);
    for (const s of sets) {
      const r = rates(all.filter((x) => x.half === h && x.set === s.name), fs, b, thr);
      cells.push(`${s.name.slice(0, 7)}[${h}] ${pct(r.refused)}/${pct(r.abstained)}`);
    }
  }
  // each set alone (fit and threshold on its own training half)
  const alone: string[] = [];
  for (const s of sets) for (const h of [0, 1]) {
    const train = all.filter((r) => r.half !== h && r.set === s.name);
    const b = fit(train, fs);
    const r = rates(all.filter((x) => x.half === h && x.set === s.name), fs, b, chooseThreshold(train, fs, b));
    alone.push(`${pct(r.refused)}/${pct(r.abstained)}`);
  }
  console.log(`${fs.slice(3).join("+") || "(three)"}`.padEnd(34), cells.join("  "), " | alone:", alone.join(" "));
}
// Why the cut is where it is: the answerable questions whose best hit is NOT their evidence look,
// to any feature of the hits, like unanswerable ones (a related document of the same field). AUC
// of the held-out logit: answerable with the evidence first vs unanswerable, and answerable with
// another document first vs unanswerable (0.5 = indistinguishable); and the curve over the
// threshold: refused among each group and abstained (--curve 'feature,…').
const auc = (pos: number[], neg: number[]) => {
  let s = 0;
  for (const p of pos) for (const n of neg) s += p > n ? 1 : p === n ? 0.5 : 0;
  return s / (pos.length * neg.length || 1);
};
for (const fs of featureSets) {
  const cells: string[] = [];
  for (const s of sets) {
    const lg: Record<string, number[]> = { first: [], other: [], un: [] };
    for (const h of [0, 1]) {
      const train = all.filter((r) => r.half !== h);
      const b = fit(train, fs);
      for (const r of all.filter((x) => x.half === h && x.set === s.name)) lg[!r.answerable ? "un" : r.goldRank === 1 ? "first" : "other"]!.push(logit(r, fs, b));
    }
    const n = lg.first!.length + lg.other!.length;
    cells.push(`${s.name.slice(0, 7)}: evidence first ${pct(lg.first!.length / n)} % of answerable, AUC vs unanswerable ${auc(lg.first!, lg.un!).toFixed(3)}; another first ${pct(lg.other!.length / n)} %, AUC ${auc(lg.other!, lg.un!).toFixed(3)}`);
  }
  console.log(`AUC ${fs.slice(3).join("+") || "(three)"}`.padEnd(34), cells.join("  "));
}
if (opt("curve")) {
  const fs = opt("curve")!.split(",");
  const b = fit(all, fs);
  console.log(`\ncurve (pooled fit on both halves of every set, features ${fs.join(", ")}): refused % of answerable with the evidence first / with another document first / all answerable, abstained % of unanswerable`);
  for (const s of sets) {
    const rs = all.filter((r) => r.set === s.name);
    const ans = rs.filter((r) => r.answerable);
    const ls = ans.map((r) => logit(r, fs, b)).sort((x, y) => x - y);
    for (const q of [0.01, 0.02, 0.03, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4]) {
      const thr = ls[Math.floor(q * ls.length)]!;
      const share = (g: Row[]) => pct(g.filter((r) => refused(r, fs, b, thr)).length / (g.length || 1));
      console.log(`${s.name} threshold at answerable p${Math.round(q * 100)}: ${share(ans.filter((r) => r.goldRank === 1))} / ${share(ans.filter((r) => r.goldRank !== 1))} / ${share(ans)} refused, ${share(rs.filter((r) => !r.answerable))} abstained`);
    }
  }
}
// Would phrase or passage evidence put the evidence first more often? The top five reordered by
// coverage + α · feature; the share of answerable questions whose first hit is then evidence.
for (const s of sets) {
  const ans = s.rows.filter((r) => r.answerable && (r as Record<string, unknown>).top5);
  const line: string[] = [];
  for (const key of ["big", "p3", "win"] as const) {
    const cells = [0, 0.25, 0.5, 1, 2].map((a) => {
      const first = ans.filter((r) => {
        const top = (r as unknown as { top5: Record<string, number>[] }).top5;
        return top.reduce((b, c) => (c.cov! + a * c[key]! > b.cov! + a * b[key]! ? c : b)).ev === 1;
      }).length;
      return `α ${a}: ${pct(first / ans.length)}`;
    });
    line.push(`${key} ${cells.join(", ")}`);
  }
  console.log(`evidence first after reordering the top 5, ${s.name}: ${line.join("; ")}`);
}
// how the groups differ, feature by feature (medians, and the answerable 5th percentile)
for (const s of sets) for (const k of FEATURES) {
  const q = (xs: number[], p: number) => xs.sort((a, b) => a - b)[Math.floor(p * xs.length)]!.toFixed(3);
  const a = s.rows.filter((r) => r.answerable).map((r) => r[k]!);
  const u = s.rows.filter((r) => !r.answerable).map((r) => r[k]!);
  console.log(`${s.name} ${k.padEnd(14)} answerable p5 ${q(a, 0.05)} p50 ${q(a, 0.5)} | unanswerable p50 ${q(u, 0.5)} p95 ${q(u, 0.95)}`);
}
