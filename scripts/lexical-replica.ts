// In-memory replica of retrieve()'s lexical ranking (BM25 k1/b, context bonus, heading bonus,
// calibration, MMR) for trying ranking variants in seconds instead of re-indexing PGlite, side by
// side with MiniSearch and wink-bm25 fed the same tokens. A measuring tool, not the product: every
// variant it suggests is then measured through the real retrieve() (scripts/bench-retrieval.ts).
//
//   node --import tsx scripts/lexical-replica.ts --dataset ../shared/bench/cmrc2018-sent [--title-heading on|off]
//
// Reports nDCG@10 / Recall@5 / Recall@20 per variant, per half of the questions (even / odd
// position in queries.jsonl), and the 95 % paired-bootstrap interval of the nDCG@10 difference to
// the best peer.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import MiniSearch from "minisearch";
import { calibrateLexical } from "@/lib/retrieval/calibrate";
import { mmrSelect } from "@/lib/retrieval/mmr";
import { simplifyChinese, tokenize } from "@/lib/retrieval/text/tokenize";

const require = createRequire(import.meta.url);
const argv = process.argv.slice(2);
const arg = (n: string) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const dir = arg("dataset")!;
interface Doc {
  id: string;
  title: string;
  text: string;
}
const readJsonl = <T>(f: string) =>
  readFileSync(f, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
const docs = readJsonl<Doc>(path.join(dir, "corpus.jsonl"));
const qrels = new Map<string, Map<string, number>>();
for (const line of readFileSync(path.join(dir, "qrels.tsv"), "utf8").split("\n").slice(1)) {
  const [q, d, s] = line.split("\t");
  if (!q || !d || Number(s ?? 1) <= 0) continue;
  if (!qrels.has(q)) qrels.set(q, new Map());
  qrels.get(q)!.set(d, Number(s ?? 1));
}
const queries = readJsonl<{ id: string; text: string }>(path.join(dir, "queries.jsonl")).filter((q) => qrels.has(q.id));
const sentenceIds = docs.every((d) => /-s\d+$/.test(d.id));
const articleOf = (id: string) => (sentenceIds ? id.replace(/-s\d+$/, "") : id);
const titleOn = (arg("title-heading") ?? "on") === "on";

// ---------- index ----------
const tokCache = new Map<string, string[]>();
const tok = (s: string) => {
  let t = tokCache.get(s);
  if (!t) tokCache.set(s, (t = tokenize(s)));
  return t;
};
const N = docs.length;
const bodyTok = docs.map((d) => tok(d.text));
const titleTok = docs.map((d) => (titleOn ? tok(d.title) : []));
const fileOf = docs.map((d) => articleOf(d.id));
const ordinalOf: number[] = [];
{
  const seen = new Map<string, number>();
  for (const f of fileOf) {
    const o = seen.get(f) ?? 0;
    ordinalOf.push(o);
    seen.set(f, o + 1);
  }
}
const fileDocs = new Map<string, number[]>();
fileOf.forEach((f, i) => (fileDocs.has(f) ? fileDocs.get(f)!.push(i) : fileDocs.set(f, [i])));

interface Field {
  tf: Map<string, number>[];
  len: number[];
  avg: number;
  post: Map<string, number[]>;
}
function field(toks: string[][]): Field {
  const tf = toks.map((ts) => {
    const m = new Map<string, number>();
    for (const t of ts) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  });
  const len = toks.map((t) => t.length);
  const post = new Map<string, number[]>();
  tf.forEach((m, i) => {
    for (const t of m.keys()) (post.get(t) ?? post.set(t, []).get(t)!).push(i);
  });
  return { tf, len, avg: len.reduce((a, b) => a + b, 0) / len.length, post };
}
const combined = field(docs.map((_, i) => [...titleTok[i]!, ...bodyTok[i]!]));
const body = field(bodyTok);
const titleF = field(titleTok);
// Dictionary-free character bigrams of every Han run (a second field for Chinese).
const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
function bigrams(s: string): string[] {
  const out: string[] = [];
  for (const m of simplifyChinese(s.normalize("NFKC")).matchAll(HAN)) {
    const r = m[0];
    if (r.length === 1) out.push(r);
    for (let i = 0; i + 2 <= r.length; i++) out.push(r.slice(i, i + 2));
  }
  return out;
}
const big = field(docs.map((d) => bigrams(titleOn ? `${d.title}\n${d.text}` : d.text)));
// Adjacent word pairs of the tokens (non-Han tokens only; a Han run has its character bigrams).
const HAN_TOKEN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
function wordPairs(ts: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < ts.length; i++) {
    if (HAN_TOKEN.test(ts[i]!) || HAN_TOKEN.test(ts[i + 1]!)) continue;
    out.push(`${ts[i]}_${ts[i + 1]}`);
  }
  return out;
}
const pairsOf = (s2: string) => [...bigrams(s2), ...wordPairs(tok(s2))];
const pairField = field(docs.map((d) => pairsOf(titleOn ? `${d.title}\n${d.text}` : d.text)));
const bag = field(docs.map((d, i) => [...titleTok[i]!, ...bodyTok[i]!, ...bigrams(titleOn ? `${d.title}\n${d.text}` : d.text).map((b) => `#${b}`)]));
// Sentences of each chunk's body (for the best-sentence signal).
const sentTf = docs.map((d) => d.text.split(/(?<=[.!?。！？])\s*/).map((x) => tok(x)).filter((x) => x.length).map((ts) => { const m = new Map<string, number>(); for (const t of ts) m.set(t, (m.get(t) ?? 0) + 1); return { m, len: ts.length }; }));
const sentAvg = (() => { let n = 0, l = 0; for (const ss of sentTf) for (const x of ss) { n++; l += x.len; } return l / Math.max(n, 1); })();
// Exact ties (chunks scoring alike) fall back to this key: by default a fixed pseudo-random order,
// as the real index's random chunk ids give (retrieve() breaks ties by chunk id). `--ties corpus`:
// corpus order (what the replica did before the twelfth session: it favoured each article's first
// sentences, where 29 % of cmrc2018's answers are, and made tie-heavy variants look far better
// than the real pipeline measured); `--ties ordinal`: the earlier position in its file first.
const tieKey = docs.map((_, i) => {
  const r = Math.imul(i + 1, 2654435761) >>> 0;
  const ties = arg("ties") ?? "random";
  return ties === "corpus" ? i : ties === "ordinal" ? ordinalOf[i]! * 2 ** 32 + r : r;
});
const tokenSets = docs.map((_, i) => new Set([...titleTok[i]!, ...bodyTok[i]!]));
const bodySets = docs.map((_, i) => new Set(bodyTok[i]!));
const idf = (df: number) => Math.log(1 + (N - df + 0.5) / (df + 0.5));

export interface Variant {
  name: string;
  k1: number;
  b: number;
  delta: number;
  ctx: number;
  head: number;
  /** "concat": title tokens in the chunk's tokens (today); "body": BM25 on the body only, title as its own field. */
  mode: "concat" | "body";
  /** BM25F-style title field weight (mode "body"): title tf saturated on its own, no length norm. */
  titleW?: number;
  /** df from the combined field (title + body) even in mode "body". */
  dfCombined?: boolean;
  mmr?: boolean;
  /** Share of the coverage ratio taken from the character-bigram field (Chinese only). */
  bigram?: number;
  /** MMR similarity on the body's tokens only (the heading is shared by a section's chunks). */
  mmrBody?: boolean;
  bag?: boolean;
  lambda?: number;
  /** BM25+ δ of the bigram field only (the word field keeps `delta`). */
  bigramDelta?: number;
  /** Use the pair field (Han bigrams + adjacent word pairs of other scripts) instead of Han bigrams only. */
  pairs?: boolean;
  /** MMR relevance: "cal" (calibrated, today) or "raw" (raw score / best raw score). */
  mmrRel?: "cal" | "raw" | "evidence";
  /** Candidate pool (today 40 = 2 × topK). */
  pool?: number;
  /** True BM25F (mode "concat" only): title tf weighted wT, each field length-normalised on its own, one saturation. */
  bm25f?: { wT: number; bT: number; /** normalise by the chunk's whole length (title + body) as today */ combinedLen?: boolean; /** body tf normalised by the whole length, title tf not normalised */ bodyByCombined?: boolean };
  /** Coordination: score × (matched distinct terms / query terms)^coord. */
  coord?: number;
  /** idf^idfPow in the term weights (1 = BM25). */
  idfPow?: number;
  /** Pseudo-relevance feedback (RM3-like): top `docs` of the first pass give `terms` expansion terms, weighing `weight` of the query's mass. */
  prf?: { docs: number; terms: number; weight: number };
  /** Pair field added (not fused): score += pairAdd × pair-field BM25 (scaled to the word mass). */
  pairAdd?: number;
  /** Best-sentence evidence: score += passage × max over the chunk's sentences of their BM25 (sentence length norm). */
  passage?: number;
  /** Weight factor of purely numeric query terms. */
  numW?: number;
  /** Section-shared heading evidence applied after the SQL cut, among the pool's candidates only (as a JS re-score would). */
  sectionPool?: boolean;
  /** Section-shared heading evidence ("max+own": the product's; "max"/"mean" leave the section's chunks tied): a term in a chunk's heading scores, for every chunk under that heading in the file, the best score any of them gets for it ("max") or the mean ("mean"). */
  section?: "max" | "mean" | "max+own";
}


type Term = { t: string; w: number; df: number; evid: number };
function rankScores(terms: Term[], v: Variant, F: Field, matchedN = new Map<number, number>()): Map<number, number> {
  const score = new Map<number, number>();
  if (v.bm25f) {
    const { wT, bT } = v.bm25f;
    for (const x of terms) {
      for (const d of combined.post.get(x.t) ?? []) {
        const tb = body.tf[d]!.get(x.t) ?? 0;
        const tt = titleF.tf[d]!.get(x.t) ?? 0;
        const ptf = v.bm25f.combinedLen
          ? (tb + wT * tt) / (1 - v.b + (v.b * combined.len[d]!) / combined.avg)
          : v.bm25f.bodyByCombined
            ? tb / (1 - v.b + (v.b * combined.len[d]!) / combined.avg) + wT * tt
            : tb / (1 - v.b + (v.b * body.len[d]!) / body.avg) + (wT * tt) / (1 - bT + (bT * titleF.len[d]!) / Math.max(titleF.avg, 1e-9));
        score.set(d, (score.get(d) ?? 0) + x.w * ((ptf * (v.k1 + 1)) / (ptf + v.k1) + v.delta));
        matchedN.set(d, (matchedN.get(d) ?? 0) + 1);
      }
    }
  } else for (const x of terms) {
    const sect = new Map<string, number[]>();
    for (const d of F.post.get(x.t) ?? []) {
      matchedN.set(d, (matchedN.get(d) ?? 0) + 1);
      const tf = F.tf[d]!.get(x.t)!;
      const part = x.w * ((tf * (v.k1 + 1)) / (tf + v.k1 * (1 - v.b + (v.b * F.len[d]!) / F.avg)) + v.delta);
      if (v.section && titleF.tf[d]!.has(x.t)) {
        const key = `${fileOf[d]}\u0000${docs[d]!.title}`;
        (sect.get(key) ?? sect.set(key, []).get(key)!).push(d, part);
        continue;
      }
      score.set(d, (score.get(d) ?? 0) + part);
    }
    for (const list of sect.values()) {
      let agg = 0;
      for (let k = 1; k < list.length; k += 2) agg = v.section === "mean" ? agg + list[k]! / (list.length / 2) : Math.max(agg, list[k]!);
      // "max+own": the section's best, ties among its chunks broken by each one's own score
      for (let k = 0; k < list.length; k += 2) score.set(list[k]!, (score.get(list[k]!) ?? 0) + agg + (v.section === "max+own" ? 1e-6 * list[k + 1]! : 0));
    }
    if (v.mode === "body" && v.titleW) {
      for (const d of titleF.post.get(x.t) ?? []) {
        const tf = titleF.tf[d]!.get(x.t)!;
        score.set(d, (score.get(d) ?? 0) + v.titleW * x.w * ((tf * (v.k1 + 1)) / (tf + v.k1)));
      }
    }
  }
  return score;
}

function rankQuery(q: string, v: Variant): string[] {
  const qtf = new Map<string, number>();
  for (const t of tok(q)) qtf.set(t, (qtf.get(t) ?? 0) + 1);
  const F = v.mode === "concat" ? combined : body;
  const terms: Term[] = [...qtf].map(([t, f]) => {
    const df = (v.dfCombined || v.mode === "concat" ? combined : body).post.get(t)?.length ?? 0;
    const dfAny = combined.post.get(t)?.length ?? 0;
    return { t, w: f * idf(df) ** (v.idfPow ?? 1), df, evid: f * (dfAny > 0 ? idf(dfAny) : idf(1)) };
  });
  if (v.numW !== undefined) for (const x of terms) if (/^\p{N}+([.,]\p{N}+)*$/u.test(x.t)) x.w *= v.numW;
  if (v.prf) {
    // first pass without feedback, then expansion terms from the best documents
    const first = rankScores(terms, { ...v, prf: undefined }, F);
    const top = [...first].sort((a, b) => b[1] - a[1]).slice(0, v.prf.docs);
    const maxS = top[0]?.[1] ?? 1;
    const tw = new Map<string, number>();
    for (const [d, sc] of top) {
      const len = combined.len[d]!;
      for (const [t, f] of combined.tf[d]!) tw.set(t, (tw.get(t) ?? 0) + (f / len) * Math.exp(sc / maxS));
    }
    const inQ = new Set(terms.map((x) => x.t));
    const exp = [...tw].filter(([t]) => !inQ.has(t)).map(([t, w]) => [t, w * idf(combined.post.get(t)?.length ?? 0)] as const).sort((a, b) => b[1] - a[1]).slice(0, v.prf.terms);
    const qmass = terms.reduce((s2, x) => s2 + x.w, 0);
    const emass = exp.reduce((s2, x) => s2 + x[1], 0);
    for (const [t, w] of exp) {
      const df = combined.post.get(t)?.length ?? 0;
      terms.push({ t, w: (v.prf.weight * qmass * w) / emass, df, evid: 0 });
    }
  }
  const mass = terms.reduce((s, x) => s + x.evid, 0);
  const matchedN = new Map<number, number>();
  const score = rankScores(terms, v, F, matchedN);
  if (v.passage) {
    for (const [d, sc] of score) {
      let best = 0;
      for (const sn of sentTf[d]!) {
        let ssc = 0;
        for (const x of terms) {
          const tf = sn.m.get(x.t);
          if (tf) ssc += x.w * ((tf * (v.k1 + 1)) / (tf + v.k1 * (1 - v.b + (v.b * sn.len) / sentAvg)));
        }
        best = Math.max(best, ssc);
      }
      score.set(d, sc + v.passage * best);
    }
  }
  // context bonus: uncapped terms (df ≤ 1000) the chunk lacks but a neighbour within 3 has
  if (v.ctx > 0 && sentenceIds) {
    const add = new Map<number, number>();
    for (const x of terms) {
      if (x.df > 1000 || x.df === 0) continue;
      const covered = new Set<number>();
      for (const d of F.post.get(x.t) ?? []) {
        const fd = fileDocs.get(fileOf[d]!)!;
        const o = ordinalOf[d]!;
        for (let k = Math.max(0, o - 3); k <= Math.min(fd.length - 1, o + 3); k++) covered.add(fd[k]!);
      }
      for (const d of covered) if (!F.tf[d]!.has(x.t) && score.has(d)) add.set(d, (add.get(d) ?? 0) + x.w);
    }
    for (const [d, a] of add) score.set(d, score.get(d)! + v.ctx * a);
  }
  if (v.coord) for (const [d, sc] of score) score.set(d, sc * ((matchedN.get(d) ?? 0) / terms.length) ** v.coord);
  if (v.bigram || v.pairAdd) {
    const bq = new Map<string, number>();
    const BF = v.pairs ? pairField : big;
    for (const t of v.pairs ? pairsOf(q) : bigrams(q)) bq.set(t, (bq.get(t) ?? 0) + 1);
    const bt = [...bq].map(([t, f]) => ({ t, w: f * idf(BF.post.get(t)?.length ?? 0) }));
    const bmass = bt.reduce((s2, x) => s2 + x.w, 0);
    if (bmass > 0) {
      const bs = new Map<number, number>();
      for (const x of bt)
        for (const d of BF.post.get(x.t) ?? []) {
          const tf = BF.tf[d]!.get(x.t)!;
          bs.set(d, (bs.get(d) ?? 0) + x.w * ((tf * (v.k1 + 1)) / (tf + v.k1 * (1 - v.b + (v.b * BF.len[d]!) / BF.avg)) + (v.bigramDelta ?? 0)));
        }
      const all = new Set([...score.keys(), ...bs.keys()]);
      if (v.pairAdd) for (const d of all) score.set(d, (score.get(d) ?? 0) + (v.pairAdd * ((bs.get(d) ?? 0) * mass)) / bmass);
      else for (const d of all) score.set(d, (1 - v.bigram!) * (score.get(d) ?? 0) + (v.bigram! * ((bs.get(d) ?? 0) * mass)) / bmass);
    }
  }
  if (v.bag) {
    // one bag: words and "#"-prefixed bigrams in the same postings, plain BM25 over all of them
    const all = [...tok(q), ...bigrams(q).map((b) => `#${b}`)];
    const qq = new Map<string, number>();
    for (const t of all) qq.set(t, (qq.get(t) ?? 0) + 1);
    score.clear();
    for (const [t, f] of qq) {
      const w = f * idf(bag.post.get(t)?.length ?? 0);
      for (const d of bag.post.get(t) ?? []) {
        const tf = bag.tf[d]!.get(t)!;
        score.set(d, (score.get(d) ?? 0) + w * ((tf * (v.k1 + 1)) / (tf + v.k1 * (1 - v.b + (v.b * bag.len[d]!) / bag.avg)) + v.delta));
      }
    }
  }
  const tie = (a: number, b: number) => (tieKey[a]! - tieKey[b]!) || a - b;
  const pool = [...score].sort((a, b) => b[1] - a[1] || tie(a[0], b[0])).slice(0, v.pool ?? 40);
  if (v.sectionPool) {
    // per (file, heading term): the best part among the pool's chunks holding it in their heading
    const part = (d: number, x: Term) => {
      const tf = combined.tf[d]!.get(x.t)!;
      return x.w * ((tf * (v.k1 + 1)) / (tf + v.k1 * (1 - v.b + (v.b * combined.len[d]!) / combined.avg)) + v.delta);
    };
    const best = new Map<string, number>();
    for (const [d] of pool) for (const x of terms) if (titleF.tf[d]!.has(x.t)) {
      const k = `${fileOf[d]}\u0000${x.t}`;
      best.set(k, Math.max(best.get(k) ?? 0, part(d, x)));
    }
    for (const e of pool) for (const x of terms) if (titleF.tf[e[0]]!.has(x.t)) e[1] += best.get(`${fileOf[e[0]]}\u0000${x.t}`)! - part(e[0], x);
    pool.sort((a, b) => b[1] - a[1] || tie(a[0], b[0]));
  }
  const cands = pool.map(([d, s]) => {
    let h = 0;
    if (v.head > 0) for (const x of terms) if (titleF.tf[d]!.has(x.t)) h += x.evid;
    const raw = s + v.head * h;
    return { d, raw, cal: calibrateLexical(raw / mass) };
  });
  cands.sort((a, b) => b.cal - a.cal || b.raw - a.raw || tie(a.d, b.d));
  if (v.mmr === false) return cands.slice(0, 20).map((c) => docs[c.d]!.id);
  const top = Math.max(...cands.map((c) => c.raw), 1e-9);
  const ev = (c: { cal: number }) => -Math.log(Math.max(1 - c.cal, 1e-300));
  const topEv = Math.max(...cands.map(ev), 1e-9);
  const picked = mmrSelect(cands.map((c) => ({ relevance: v.mmrRel === "raw" ? c.raw / top : v.mmrRel === "evidence" ? ev(c) / topEv : c.cal, tokens: (v.mmrBody ? bodySets : tokenSets)[c.d]! })), 20, v.lambda ?? 0.85).map((i) => cands[i]!);
  picked.sort((a, b) => b.cal - a.cal || b.raw - a.raw || tie(a.d, b.d));
  return picked.map((c) => docs[c.d]!.id);
}

// ---------- metrics ----------
const dcg = (r: number[]) => r.reduce((s, x, i) => s + (2 ** x - 1) / Math.log2(i + 2), 0);
function perQuery(list: string[], qid: string) {
  const rel = qrels.get(qid)!;
  const ideal = dcg([...rel.values()].sort((a, b) => b - a).slice(0, 10));
  return {
    ndcg: ideal ? dcg(list.slice(0, 10).map((d) => rel.get(d) ?? 0)) / ideal : 0,
    r5: list.slice(0, 5).filter((d) => rel.has(d)).length / rel.size,
    r20: list.slice(0, 20).filter((d) => rel.has(d)).length / rel.size,
  };
}
type PQ = ReturnType<typeof perQuery>[];
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
// Halves: even / odd position in queries.jsonl (default), or `--split seeded`: a fixed seeded
// shuffle of the questions cut in two (seed 23), a second split independent of the file order.
const seededHalf: number[] = (() => {
  let seed = 23;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed / 0x7fffffff);
  const idx = queries.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  const h = new Array<number>(queries.length).fill(0);
  idx.forEach((q, k) => (h[q] = k < idx.length / 2 ? 0 : 1));
  return h;
})();
const halfOfIndex = (i: number) => (arg("split") === "seeded" ? seededHalf[i]! : i % 2);
function summary(p: PQ) {
  const half = (h: number) => p.filter((_, i) => halfOfIndex(i) === h);
  const m = (xs: PQ) => `${avg(xs.map((x) => x.ndcg)).toFixed(4)}/${avg(xs.map((x) => x.r5)).toFixed(3)}/${avg(xs.map((x) => x.r20)).toFixed(3)}`;
  return `${m(p)}  even ${m(half(0))}  odd ${m(half(1))}`;
}
function bootstrap(a: number[], b: number[]): [number, number] {
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed / 0x7fffffff);
  const diffs: number[] = [];
  for (let r = 0; r < 2000; r++) {
    let s = 0;
    for (let i = 0; i < a.length; i++) {
      const j = Math.floor(rnd() * a.length);
      s += a[j]! - b[j]!;
    }
    diffs.push(s / a.length);
  }
  diffs.sort((x, y) => x - y);
  return [diffs[49]!, diffs[1949]!];
}

// ---------- peers ----------
interface WinkEngine {
  defineConfig(c: unknown): void;
  definePrepTasks(t: ((s: string) => string[])[]): void;
  addDoc(d: Record<string, string>, id: number): void;
  consolidate(): void;
  search(q: string, limit: number): [number | string, number][];
}
const text = (d: Doc) => (titleOn ? `${d.title}\n${d.text}` : d.text);
const peers: { name: string; p: PQ }[] = [];
const peerLists: Record<string, Record<string, string[]>> = {};
{
  const ms = new MiniSearch<{ id: string; body: string }>({ fields: ["body"], tokenize: tok, processTerm: (t) => t, searchOptions: { tokenize: tok, processTerm: (t) => t } });
  ms.addAll(docs.map((d) => ({ id: d.id, body: text(d) })));
  const msLists = queries.map((q) => ms.search(q.text).slice(0, 20).map((r) => String(r.id)));
  peerLists.MiniSearch = Object.fromEntries(queries.map((q, i) => [q.id, msLists[i]!.slice(0, 10)]));
  peers.push({ name: "MiniSearch", p: queries.map((q, i) => perQuery(msLists[i]!, q.id)) });
  const bm25 = (require("wink-bm25-text-search") as () => WinkEngine)();
  bm25.defineConfig({ fldWeights: { body: 1 }, bm25Params: { k1: 1.2, b: 0.75, k: 1 } });
  bm25.definePrepTasks([tok]);
  docs.forEach((d, i) => bm25.addDoc({ body: text(d) }, i));
  bm25.consolidate();
  const wLists = queries.map((q) => bm25.search(q.text, 20).map(([i]) => docs[Number(i)]!.id));
  peerLists.wink = Object.fromEntries(queries.map((q, i) => [q.id, wLists[i]!.slice(0, 10)]));
  peers.push({ name: "wink", p: queries.map((q, i) => perQuery(wLists[i]!, q.id)) });
}
for (const pr of peers) console.log(`${pr.name.padEnd(44)} ${summary(pr.p)}`);
const best = peers.reduce((a, b) => (avg(a.p.map((x) => x.ndcg)) >= avg(b.p.map((x) => x.ndcg)) ? a : b));

const base: Variant = { name: "today", k1: 0.9, b: 0.4, delta: 0, ctx: 0.25, head: 0.25, mode: "concat" };
const variantsArg = arg("variants");
const variants: Variant[] = variantsArg ? (JSON.parse(variantsArg) as Partial<Variant>[]).map((v) => ({ ...base, ...v }) as Variant) : [base];
const dumps: Record<string, Record<string, string[]>> = { ...peerLists };
for (const v of variants) {
  const lists = queries.map((q) => rankQuery(q.text, v));
  dumps[v.name] = Object.fromEntries(queries.map((q, i) => [q.id, lists[i]!.slice(0, 10)]));
  const p = queries.map((q, i) => perQuery(lists[i]!, q.id));
  const [lo, hi] = bootstrap(p.map((x) => x.ndcg), best.p.map((x) => x.ndcg));
  const half = (h: number) => bootstrap(p.filter((_, i) => halfOfIndex(i) === h).map((x) => x.ndcg), best.p.filter((_, i) => halfOfIndex(i) === h).map((x) => x.ndcg));
  const [e, o] = [half(0), half(1)];
  console.log(`${v.name.padEnd(44)} ${summary(p)}  Δ${best.name} [${lo.toFixed(4)}, ${hi.toFixed(4)}] even [${e[0].toFixed(3)}, ${e[1].toFixed(3)}] odd [${o[0].toFixed(3)}, ${o[1].toFixed(3)}]`);
}
// --dump FILE: each variant's top 10 per question (for looking at where two variants differ).
if (arg("dump")) writeFileSync(arg("dump")!, JSON.stringify(dumps));
