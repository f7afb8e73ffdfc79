// Fits the query-level answerability model (lib/retrieval/calibrate.ts) on the abstention
// experiments of several benchmark sets at once, so that no coefficient is fitted to one set only:
//
//   node --conditions=react-server --import tsx scripts/bench-retrieval.ts --dataset ../shared/bench/cmrc2018-sent --abstention-only --features-out /tmp/cmrc.jsonl
//   node --conditions=react-server --import tsx scripts/bench-retrieval.ts --dataset ../shared/bench/scifact-train --abstention-only --features-out /tmp/scifact.jsonl
//   node --import tsx scripts/fit-answerability.ts /tmp/cmrc.jsonl /tmp/scifact.jsonl
//   … --operating-point (the objective is the operating point), --features=a,b,… (other dumped
//   signals), --evidence [--current] (refusals split by whether the evidence came first)
//
// Logistic regression (IRLS, a small ridge) on the three lexical features, every set weighted
// equally whatever its size. Reported: the pooled fit; a fit on each half (even / odd indexed
// documents of every set) tested on the other half; a fit on each set alone tested on the other
// set (how far a one-set fit carries); and for each, the largest τ at which every (set, half)
// keeps the answerable questions wrongly refused ≤ the target, with the abstention it buys.
import { readFileSync } from "node:fs";
import { ANSWERABILITY, calibrateLexical, DEFAULT_LEXICAL_CALIBRATION } from "@/lib/retrieval/calibrate";

interface Row {
  dataset: string;
  half: number;
  answerable: number;
  coverage: number;
  matchedShare: number;
  absentShare: number;
  [feature: string]: number | string;
}

const files = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const target = Number(process.argv.find((a) => a.startsWith("--max-refused="))?.split("=")[1] ?? 0.03);
const rows: Row[] = files.flatMap((f) =>
  readFileSync(f, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row),
);
// --features=a,b,… tries other features the benchmark dumps (secondCoverage, rarestMatchedShare,
// headingShare, and with --features-out bigramShare, pair3, win20, concentration);
// the model in calibrate.ts uses the default three.
const FEATURES = (process.argv.find((a) => a.startsWith("--features="))?.split("=")[1] ?? "coverage,matchedShare,absentShare").split(",");
const x = (r: Row) => [1, ...FEATURES.map((f) => Number(r[f] ?? 0))];
const NAMES = ["intercept", ...FEATURES];

function sigmoid(z: number) {
  return 1 / (1 + Math.exp(-z));
}

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

/** Weighted logistic regression; each dataset's rows together weigh 1. */
function fit(data: Row[], ridge = 1e-3): number[] {
  const perSet = new Map<string, number>();
  for (const r of data) perSet.set(r.dataset, (perSet.get(r.dataset) ?? 0) + 1);
  const w = data.map((r) => 1 / perSet.get(r.dataset)!);
  let beta = NAMES.map(() => 0);
  for (let it = 0; it < 50; it++) {
    const h = beta.map(() => beta.map(() => 0));
    const g = beta.map(() => 0);
    data.forEach((r, i) => {
      const xi = x(r);
      const p = sigmoid(xi.reduce((s, v, k) => s + v * beta[k]!, 0));
      for (let a = 0; a < NAMES.length; a++) {
        g[a]! += w[i]! * (r.answerable - p) * xi[a]!;
        for (let b = 0; b < NAMES.length; b++) h[a]![b]! += w[i]! * p * (1 - p) * xi[a]! * xi[b]!;
      }
    });
    for (let a = 1; a < NAMES.length; a++) {
      h[a]![a]! += ridge;
      g[a]! -= ridge * beta[a]!;
    }
    const step = solve(h, g);
    beta = beta.map((v, k) => v + step[k]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return beta;
}

/** What min_score 0.5 does to a question: the top score is min(cap, calibrated lexical of the best chunk). */
function refusedAt(beta: number[], tau: number, r: Row): boolean {
  if (!(r.coverage > 0)) return true;
  const p = sigmoid(x(r).reduce((s, v, k) => s + v * beta[k]!, 0));
  return p < tau || calibrateLexical(r.coverage, DEFAULT_LEXICAL_CALIBRATION) < 0.5;
}

function groups(data: Row[]) {
  const m = new Map<string, Row[]>();
  for (const r of data) {
    const k = `${r.dataset} ${r.half === 0 ? "even" : "odd"}`;
    if (!m.has(k)) m.set(k, []);
    m.get(k)!.push(r);
  }
  return [...m.entries()].sort();
}

function rates(beta: number[], tau: number, data: Row[]) {
  const ans = data.filter((r) => r.answerable === 1);
  const un = data.filter((r) => r.answerable === 0);
  return {
    refused: ans.filter((r) => refusedAt(beta, tau, r)).length / (ans.length || 1),
    abstained: un.filter((r) => refusedAt(beta, tau, r)).length / (un.length || 1),
  };
}

/** Largest τ (step 0.005) at which every (set, half) of `data` stays within the refusal target. */
function chooseTau(beta: number[], data: Row[]): number {
  let best = 0;
  for (let tau = 0.005; tau < 0.9; tau += 0.005) {
    if (groups(data).every(([, g]) => rates(beta, tau, g).refused <= target)) best = Math.round(tau * 1000) / 1000;
    else break;
  }
  return best;
}

/**
 * The operating point as the objective: coefficients (and τ) that maximize the mean abstention
 * over the sets (each set weighing the same), subject to every (set, half) of `data` keeping answerable questions
 * wrongly refused ≤ the target. Started from the likelihood fit; a seeded random search with a
 * shrinking step (the objective is a step function of the coefficients, no gradient).
 */
function fitOperatingPoint(data: Row[], start: number[]): number[] {
  const sets = [...new Set(data.map((r) => r.dataset))];
  const score = (beta: number[]) => {
    const tau = chooseTau(beta, data);
    if (tau === 0) return { tau, value: -1 };
    return { tau, value: sets.reduce((sum, d) => sum + rates(beta, tau, data.filter((r) => r.dataset === d)).abstained, 0) / sets.length };
  };
  let best = start;
  let bestScore = score(best).value;
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) * 2 - 1;
  for (let step = 1; step > 0.02; step *= 0.7) {
    for (let i = 0; i < 25; i++) {
      const cand = best.map((v) => v + step * rnd() * Math.max(1, Math.abs(v)));
      const sc = score(cand).value;
      if (sc > bestScore) {
        best = cand;
        bestScore = sc;
      }
    }
  }
  return best;
}

const pct = (v: number) => `${(100 * v).toFixed(1)}%`;
const operating = process.argv.includes("--operating-point");
function report(title: string, train: Row[], test: Row[]) {
  const beta = operating ? fitOperatingPoint(train, fit(train)) : fit(train);
  const tau = chooseTau(beta, train);
  console.log(`\n### ${title}`);
  console.log(`coefficients: ${NAMES.map((n, i) => `${n} ${beta[i]!.toFixed(3)}`).join(", ")}; τ ${tau} (largest with every training (set, half) ≤ ${pct(target)} wrongly refused)`);
  console.log("| evaluated on | answerable wrongly refused | unanswerable abstained |");
  console.log("| --- | ---: | ---: |");
  for (const [k, g] of groups(test)) {
    const r = rates(beta, tau, g);
    console.log(`| ${k} | ${pct(r.refused)} | ${pct(r.abstained)} |`);
  }
  return { beta, tau };
}

const datasets = [...new Set(rows.map((r) => r.dataset))];
console.log(`${rows.length} questions from ${datasets.join(", ")}; target: answerable wrongly refused ≤ ${pct(target)}`);
// The model in calibrate.ts on the same rows: what a refit has to beat (the rows are dumped with
// the ranking of the tree that ran the benchmark, so this shows whether the model still holds).
if (FEATURES.join() === "coverage,matchedShare,absentShare") {
  const current = [ANSWERABILITY.intercept, ANSWERABILITY.coverage, ANSWERABILITY.matchedShare, ANSWERABILITY.absentShare];
  console.log(`\n### The model in calibrate.ts (τ ${ANSWERABILITY.tau}), evaluated on these rows`);
  console.log("| evaluated on | answerable wrongly refused | unanswerable abstained |");
  console.log("| --- | ---: | ---: |");
  for (const [k, g] of groups(rows)) {
    const r = rates(current, ANSWERABILITY.tau, g);
    console.log(`| ${k} | ${pct(r.refused)} | ${pct(r.abstained)} |`);
  }
}
const pooled = report("Pooled fit (all sets, both halves), evaluated on the same", rows, rows);
for (const h of [0, 1]) {
  report(`Fit on the ${h === 0 ? "even" : "odd"} halves of every set, evaluated on the ${h === 0 ? "odd" : "even"} halves`, rows.filter((r) => r.half === h), rows.filter((r) => r.half !== h));
}
if (datasets.length > 1) {
  for (const d of datasets) report(`Fit on ${d} alone, evaluated on every set`, rows.filter((r) => r.dataset === d), rows);
}
// --evidence: why the cut is where it is. Needs the evidenceRank the benchmark dumps (the rank of
// the first hit from an evidence document among the returned hits). Answerable questions whose
// first hit is another document look, to any feature of the hits, like unanswerable ones; the AUC
// of the model's logit (0.5 = indistinguishable) and the curve over τ show it, per (set, half).
if (process.argv.includes("--evidence")) {
  const beta = process.argv.includes("--current") ? [ANSWERABILITY.intercept, ANSWERABILITY.coverage, ANSWERABILITY.matchedShare, ANSWERABILITY.absentShare] : pooled.beta;
  if (beta.length !== NAMES.length) throw new Error("--current needs the default three features");
  const logit = (r: Row) => x(r).reduce((s, v, k) => s + v * beta[k]!, 0);
  const auc = (pos: Row[], neg: Row[]) => {
    const ln = neg.map(logit);
    let s = 0;
    for (const p of pos.map(logit)) for (const n of ln) s += p > n ? 1 : p === n ? 0.5 : 0;
    return pos.length && neg.length ? (s / (pos.length * neg.length)).toFixed(3) : "—";
  };
  console.log(`\n### Evidence first or not (${process.argv.includes("--current") ? "the model in calibrate.ts" : "the pooled fit"})`);
  console.log("| set, half | answerable with the evidence first | AUC vs unanswerable | answerable with another document first (or none) | AUC vs unanswerable |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const [k, g] of groups(rows)) {
    const ans = g.filter((r) => r.answerable === 1);
    const first = ans.filter((r) => r.evidenceRank === 1);
    const other = ans.filter((r) => r.evidenceRank !== 1);
    const un = g.filter((r) => r.answerable === 0);
    console.log(`| ${k} | ${pct(first.length / ans.length)} | ${auc(first, un)} | ${pct(other.length / ans.length)} | ${auc(other, un)} |`);
  }
  console.log("\n| set, half | τ | refused: evidence first | refused: another first | refused: all answerable | unanswerable abstained |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
  for (const [k, g] of groups(rows)) {
    const ans = g.filter((r) => r.answerable === 1);
    const un = g.filter((r) => r.answerable === 0);
    const share = (xs: Row[], tau: number) => pct(xs.filter((r) => refusedAt(beta, tau, r)).length / (xs.length || 1));
    for (const tau of [0.2, 0.315, 0.4, 0.5, 0.6, 0.7]) {
      console.log(`| ${k} | ${tau} | ${share(ans.filter((r) => r.evidenceRank === 1), tau)} | ${share(ans.filter((r) => r.evidenceRank !== 1), tau)} | ${share(ans, tau)} | ${share(un, tau)} |`);
    }
  }
}

console.log(`\nPooled model for calibrate.ts: ${JSON.stringify({ ...Object.fromEntries(NAMES.map((n, i) => [n, +pooled.beta[i]!.toFixed(3)])), tau: pooled.tau })}`);
