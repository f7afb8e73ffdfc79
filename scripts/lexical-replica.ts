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
import { readFileSync } from "node:fs";
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
const bag = field(docs.map((d, i) => [...titleTok[i]!, ...bodyTok[i]!, ...bigrams(titleOn ? `${d.title}\n${d.text}` : d.text).map((b) => `#${b}`)]));
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
}

function rankQuery(q: string, v: Variant): string[] {
  const qtf = new Map<string, number>();
  for (const t of tok(q)) qtf.set(t, (qtf.get(t) ?? 0) + 1);
  const F = v.mode === "concat" ? combined : body;
  const terms = [...qtf].map(([t, f]) => {
    const df = (v.dfCombined || v.mode === "concat" ? combined : body).post.get(t)?.length ?? 0;
    const dfAny = combined.post.get(t)?.length ?? 0;
    return { t, w: f * idf(df), df, evid: f * (dfAny > 0 ? idf(dfAny) : idf(1)) };
  });
  const mass = terms.reduce((s, x) => s + x.evid, 0);
  const score = new Map<number, number>();
  for (const x of terms) {
    for (const d of F.post.get(x.t) ?? []) {
      const tf = F.tf[d]!.get(x.t)!;
      const part = x.w * ((tf * (v.k1 + 1)) / (tf + v.k1 * (1 - v.b + (v.b * F.len[d]!) / F.avg)) + v.delta);
      score.set(d, (score.get(d) ?? 0) + part);
    }
    if (v.mode === "body" && v.titleW) {
      for (const d of titleF.post.get(x.t) ?? []) {
        const tf = titleF.tf[d]!.get(x.t)!;
        score.set(d, (score.get(d) ?? 0) + v.titleW * x.w * ((tf * (v.k1 + 1)) / (tf + v.k1)));
      }
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
  if (v.bigram) {
    const bq = new Map<string, number>();
    for (const t of bigrams(q)) bq.set(t, (bq.get(t) ?? 0) + 1);
    const bt = [...bq].map(([t, f]) => ({ t, w: f * idf(big.post.get(t)?.length ?? 0) }));
    const bmass = bt.reduce((s2, x) => s2 + x.w, 0);
    if (bmass > 0) {
      const bs = new Map<number, number>();
      for (const x of bt)
        for (const d of big.post.get(x.t) ?? []) {
          const tf = big.tf[d]!.get(x.t)!;
          bs.set(d, (bs.get(d) ?? 0) + x.w * ((tf * (v.k1 + 1)) / (tf + v.k1 * (1 - v.b + (v.b * big.len[d]!) / big.avg))));
        }
      const all = new Set([...score.keys(), ...bs.keys()]);
      for (const d of all) score.set(d, (1 - v.bigram) * (score.get(d) ?? 0) + v.bigram * ((bs.get(d) ?? 0) * mass) / bmass);
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
  const pool = [...score].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 40);
  const cands = pool.map(([d, s]) => {
    let h = 0;
    if (v.head > 0) for (const x of terms) if (titleF.tf[d]!.has(x.t)) h += x.evid;
    const raw = s + v.head * h;
    return { d, raw, cal: calibrateLexical(raw / mass) };
  });
  cands.sort((a, b) => b.cal - a.cal || b.raw - a.raw || a.d - b.d);
  if (v.mmr === false) return cands.slice(0, 20).map((c) => docs[c.d]!.id);
  const picked = mmrSelect(cands.map((c) => ({ relevance: c.cal, tokens: (v.mmrBody ? bodySets : tokenSets)[c.d]! })), 20, v.lambda ?? 0.85).map((i) => cands[i]!);
  picked.sort((a, b) => b.cal - a.cal || b.raw - a.raw || a.d - b.d);
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
function summary(p: PQ) {
  const half = (h: number) => p.filter((_, i) => i % 2 === h);
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
{
  const ms = new MiniSearch<{ id: string; body: string }>({ fields: ["body"], tokenize: tok, processTerm: (t) => t, searchOptions: { tokenize: tok, processTerm: (t) => t } });
  ms.addAll(docs.map((d) => ({ id: d.id, body: text(d) })));
  peers.push({ name: "MiniSearch", p: queries.map((q) => perQuery(ms.search(q.text).slice(0, 20).map((r) => String(r.id)), q.id)) });
  const bm25 = (require("wink-bm25-text-search") as () => WinkEngine)();
  bm25.defineConfig({ fldWeights: { body: 1 }, bm25Params: { k1: 1.2, b: 0.75, k: 1 } });
  bm25.definePrepTasks([tok]);
  docs.forEach((d, i) => bm25.addDoc({ body: text(d) }, i));
  bm25.consolidate();
  peers.push({ name: "wink", p: queries.map((q) => perQuery(bm25.search(q.text, 20).map(([i]) => docs[Number(i)]!.id), q.id)) });
}
for (const pr of peers) console.log(`${pr.name.padEnd(44)} ${summary(pr.p)}`);
const best = peers.reduce((a, b) => (avg(a.p.map((x) => x.ndcg)) >= avg(b.p.map((x) => x.ndcg)) ? a : b));

const base: Variant = { name: "today", k1: 0.9, b: 0.4, delta: 0, ctx: 0.25, head: 0.25, mode: "concat" };
const variantsArg = arg("variants");
const variants: Variant[] = variantsArg ? (JSON.parse(variantsArg) as Partial<Variant>[]).map((v) => ({ ...base, ...v }) as Variant) : [base];
for (const v of variants) {
  const p = queries.map((q) => perQuery(rankQuery(q.text, v), q.id));
  const [lo, hi] = bootstrap(p.map((x) => x.ndcg), best.p.map((x) => x.ndcg));
  const half = (h: number) => bootstrap(p.filter((_, i) => i % 2 === h).map((x) => x.ndcg), best.p.filter((_, i) => i % 2 === h).map((x) => x.ndcg));
  const [e, o] = [half(0), half(1)];
  console.log(`${v.name.padEnd(44)} ${summary(p)}  Δ${best.name} [${lo.toFixed(4)}, ${hi.toFixed(4)}] even [${e[0].toFixed(3)}, ${e[1].toFixed(3)}] odd [${o[0].toFixed(3)}, ${o[1].toFixed(3)}]`);
}
