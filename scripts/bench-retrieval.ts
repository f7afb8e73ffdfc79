// Retrieval benchmark (a figure, not a test). Loads a dataset in the shared format into a fresh
// knowledge base through the real indexer (replaceFileChunks), runs every query through the same
// retrieve() the assistant uses, and compares with MiniSearch and wink-bm25-text-search fed the
// same tokens. Run with the react-server condition so "server-only" resolves to its empty module:
//
//   node --conditions=react-server --import tsx scripts/bench-retrieval.ts --dataset ../shared/bench/cmrc2018-sent
//   node --conditions=react-server --import tsx scripts/bench-retrieval.ts --dataset ../shared/bench/cmrc2018-sent --scale 200000
//
// Options: --out FILE (default docs/benchmarks-retrieval.md; --out - prints only), --limit N
// (first N queries), --no-baselines, --no-abstention, --database-url URL (PostgreSQL instead of
// a fresh PGlite), --title-heading on|off (index the title as the chunk's heading path), --reuse-db DIR
// (keep the embedded database in DIR; a later run with the same DIR and dataset skips indexing).
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir, cpus } from "node:os";
import path from "node:path";
import MiniSearch from "minisearch";
import { openDatabase } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { ANSWERABILITY, DEFAULT_LEXICAL_CALIBRATION, type AnswerabilityFeatures } from "@/lib/retrieval/calibrate";
import { retrieve } from "@/lib/retrieval/core";
import { backfillHeadingRuns } from "@/lib/retrieval/heading-runs-backfill";
import { replaceFileChunks } from "@/lib/retrieval/index-writer";
import { tokenize, DEFAULT_TOKENIZE_OPTIONS } from "@/lib/retrieval/text/tokenize";
import type { RetrievalContext, RetrievalHit } from "@/lib/retrieval/types";
import { pairShare, positions, windowMass } from "./phrase-evidence";

// ---------- args ----------
const argv = process.argv.slice(2);
function arg(name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}
const flag = (name: string) => argv.includes(`--${name}`);
const datasetDir = arg("dataset");
if (!datasetDir) {
  console.error("usage: bench-retrieval --dataset DIR [--scale N] [--limit N] [--out FILE] [--no-baselines] [--no-abstention]");
  process.exit(2);
}
const datasetName = path.basename(path.resolve(datasetDir));
const outFile = arg("out") ?? "docs/benchmarks-retrieval.md";
const limit = arg("limit") ? Number(arg("limit")) : Infinity;
const scale = arg("scale") ? Number(arg("scale")) : 0;
const databaseUrl = arg("database-url");
const postingsCap = arg("postings-cap") ? Number(arg("postings-cap")) : undefined;
const bm25Delta = arg("bm25-delta") ? Number(arg("bm25-delta")) : undefined;
// --lexical-midpoint M: the per-hit lexical calibration midpoint (default in calibrate.ts).
const calibration = arg("lexical-midpoint") ? { ...DEFAULT_LEXICAL_CALIBRATION, midpoint: Number(arg("lexical-midpoint")) } : undefined;

// ---------- data ----------
interface Doc {
  id: string;
  title: string;
  text: string;
}
interface Query {
  id: string;
  text: string;
}
function readJsonl<T>(file: string): T[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}
const docs = readJsonl<Doc>(path.join(datasetDir, "corpus.jsonl"));
const queriesAll = readJsonl<Query>(path.join(datasetDir, "queries.jsonl"));
const qrels = new Map<string, Map<string, number>>();
for (const line of readFileSync(path.join(datasetDir, "qrels.tsv"), "utf8").split("\n").slice(1)) {
  const [q, d, s] = line.split("\t");
  if (!q || !d) continue;
  const score = Number(s ?? 1);
  if (score <= 0) continue;
  if (!qrels.has(q)) qrels.set(q, new Map());
  qrels.get(q)!.set(d, score);
}
const queries = queriesAll.filter((q) => qrels.has(q.id)).slice(0, limit);
// Sentence corpora ("<article>-s<n>") are grouped one file per article, in order; others are one file per document.
const sentenceIds = docs.every((d) => /-s\d+$/.test(d.id));
const articleOf = (docId: string) => (sentenceIds ? docId.replace(/-s\d+$/, "") : docId);
// Titles as heading path is the default construction on every set (real documents have titles);
// `--title-heading off` gives the text-only row (its own section, "<dataset>-text-only").
const titleHeading = (arg("title-heading") ?? "on") === "on";

// ---------- metrics ----------
function dcg(rels: number[]): number {
  return rels.reduce((s, r, i) => s + (Math.pow(2, r) - 1) / Math.log2(i + 2), 0);
}
interface Metrics {
  ndcg10: number;
  r5: number;
  r20: number;
  mrr10: number;
}
function evaluate(ranked: Map<string, string[]>, qs: Query[]): Metrics {
  let ndcg = 0;
  let r5 = 0;
  let r20 = 0;
  let mrr = 0;
  for (const q of qs) {
    const rel = qrels.get(q.id)!;
    const list = ranked.get(q.id) ?? [];
    const gains = list.slice(0, 10).map((d) => rel.get(d) ?? 0);
    const ideal = [...rel.values()].sort((a, b) => b - a).slice(0, 10);
    ndcg += dcg(ideal) ? dcg(gains) / dcg(ideal) : 0;
    const nrel = rel.size;
    r5 += list.slice(0, 5).filter((d) => rel.has(d)).length / nrel;
    r20 += list.slice(0, 20).filter((d) => rel.has(d)).length / nrel;
    const first = list.slice(0, 10).findIndex((d) => rel.has(d));
    mrr += first >= 0 ? 1 / (first + 1) : 0;
  }
  const n = qs.length || 1;
  return { ndcg10: ndcg / n, r5: r5 / n, r20: r20 / n, mrr10: mrr / n };
}
/** nDCG@10 of each query, in the order of qs. */
function ndcgPerQuery(ranked: Map<string, string[]>, qs: Query[]): number[] {
  return qs.map((q) => {
    const rel = qrels.get(q.id)!;
    const ideal = dcg([...rel.values()].sort((a, b) => b - a).slice(0, 10));
    return ideal ? dcg((ranked.get(q.id) ?? []).slice(0, 10).map((d) => rel.get(d) ?? 0)) / ideal : 0;
  });
}
/** 95 % paired-bootstrap interval of mean(a − b) (2,000 resamples of the queries, fixed seed). */
function bootstrapInterval(a: number[], b: number[]): [number, number] {
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed / 0x7fffffff);
  const means: number[] = [];
  for (let r = 0; r < 2000; r++) {
    let sum = 0;
    for (let i = 0; i < a.length; i++) {
      const j = Math.floor(rnd() * a.length);
      sum += a[j]! - b[j]!;
    }
    means.push(sum / (a.length || 1));
  }
  means.sort((x, y) => x - y);
  return [means[49]!, means[1949]!];
}
/** The fixed split every ranking change is checked on: even and odd position in queries.jsonl. */
const halfOf = <T>(xs: T[], h: number) => xs.filter((_, i) => i % 2 === h);
function pct(xs: number[], p: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
const f3 = (x: number) => x.toFixed(3);
const f1 = (x: number) => x.toFixed(1);

// ---------- DB + indexing ----------
let tmpDir: string | null = null;
// --reuse-db DIR: keep the embedded database in DIR and reuse an index built there by an
// earlier run of the same dataset (to iterate on query latency without re-indexing).
const reuseDir = arg("reuse-db");
async function openFresh() {
  if (databaseUrl) return openDatabase({ databaseUrl });
  if (reuseDir) {
    // An index built by an earlier run (possibly before migration 20261211000000): its files'
    // heading runs are computed here as the server's start would.
    const h = await openDatabase({ dataDir: reuseDir });
    await backfillHeadingRuns(h.prisma);
    return h;
  }
  tmpDir = mkdtempSync(path.join(tmpdir(), "ka-bench-"));
  return openDatabase({ dataDir: tmpDir });
}

const run = Date.now().toString(36);
let seq = 0;
async function createKb(db: PrismaClient, name: string): Promise<string> {
  const uid = `bench-u-${run}`;
  await db.user.upsert({ where: { id: uid }, create: { id: uid, email: `${uid}@bench.local`, name: "bench" }, update: {} });
  const kb = `bench-kb-${run}-${++seq}`;
  await db.knowledge.create({ data: { id: kb, name, ownerId: uid } });
  return kb;
}

/** Indexes docs grouped into files; returns chunk id → doc id and the time taken. */
async function indexDocs(db: PrismaClient, kb: string, list: Doc[], reuse = false): Promise<{ chunkToDoc: Map<string, string>; ms: number; files: number }> {
  const groups = new Map<string, Doc[]>();
  for (const d of list) {
    const a = articleOf(d.id);
    if (!groups.has(a)) groups.set(a, []);
    groups.get(a)!.push(d);
  }
  const t0 = performance.now();
  let n = 0;
  for (const [article, ds] of reuse ? [] : groups) {
    const fileId = `${kb}-f${n++}`;
    await db.knowledgeFile.create({
      data: {
        id: fileId,
        knowledgeId: kb,
        name: ds[0]!.title || article,
        fileType: "txt",
        mimeType: "text/plain",
        size: BigInt(ds.reduce((s, d) => s + d.text.length, 0)),
        sha256: fileId,
        storageKey: fileId,
        status: "success",
      },
    });
    await replaceFileChunks(db, {
      knowledgeId: kb,
      fileId,
      chunks: ds.map((d, i) => ({ ordinal: i, content: d.text, pageStart: null, pageEnd: null, headingPath: titleHeading ? d.title : "" })),
    });
  }
  const ms = performance.now() - t0;
  // Map chunks back to dataset ids through (file, ordinal).
  const fileDocs = [...groups.values()];
  const rows = await db.$queryRawUnsafe<{ id: string; file_id: string; ordinal: number }[]>(
    `SELECT id, file_id, ordinal FROM chunks WHERE knowledge_id = $1`,
    kb,
  );
  const chunkToDoc = new Map<string, string>();
  for (const r of rows) {
    const fi = Number(r.file_id.slice(r.file_id.lastIndexOf("-f") + 2));
    chunkToDoc.set(r.id, fileDocs[fi]![r.ordinal]!.id);
  }
  return { chunkToDoc, ms, files: groups.size };
}

function ctxFor(kb: string): RetrievalContext {
  return { ownerId: "bench", sessionId: "bench", turnId: "bench", traceId: "bench", signal: new AbortController().signal, readableKnowledgeIds: new Set([kb]) };
}

async function runQueries(db: PrismaClient, kb: string, chunkToDoc: Map<string, string>, qs: Query[], topK = 20, answerabilityTau?: number | null) {
  const ranked = new Map<string, string[]>();
  const top = new Map<string, { docs: string[]; scores: number[]; features?: AnswerabilityFeatures & Record<string, number> }>();
  const lat: number[] = [];
  const ctx = ctxFor(kb);
  // Warm-up (JIT, jieba dictionary, plan caches) is not measured.
  for (const q of qs.slice(0, 20)) await retrieve({ query: q.text, topK, knowledgeBaseIds: [kb] }, ctx, { db, postingsCap, bm25Delta, answerabilityTau, calibration });
  for (const q of qs) {
    const t0 = performance.now();
    const res = await retrieve({ query: q.text, topK, knowledgeBaseIds: [kb] }, ctx, { db, postingsCap, bm25Delta, answerabilityTau, calibration });
    lat.push(performance.now() - t0);
    const ds = res.hits.map((h) => chunkToDoc.get(h.chunkId!) ?? "?");
    ranked.set(q.id, ds);
    const a = res.diagnostics.builtin?.answerability;
    top.set(q.id, {
      docs: ds,
      scores: res.hits.map((h) => h.score),
      features: a && { coverage: a.coverage, matchedShare: a.matchedShare, absentShare: a.absentShare, secondCoverage: a.secondCoverage, rarestMatchedShare: a.rarestMatchedShare, headingShare: a.headingShare, terms: a.terms.length, ...(featuresOut ? hitEvidence(q, res.hits, ds, a.terms) : {}) },
    });
  }
  return { ranked, top, lat };
}

/**
 * Evidence of the returned hits the answerability model does not use, dumped with its features
 * (--features-out) to measure whether it would help (docs/benchmarks-retrieval.md, "Twelfth
 * session: English abstention"): the rank of the first hit from an evidence document (article on
 * sentence sets; 0 = none among the hits), the top hit's phrase and passage evidence
 * (scripts/phrase-evidence.ts) and how much of what the hits hold together the top hit holds.
 */
function hitEvidence(q: Query, hits: RetrievalHit[], docIds: string[], terms: { term: string; df: number; weight: number }[]) {
  const evidence = new Set([...qrels.get(q.id)!.keys()].map(articleOf));
  const first = docIds.findIndex((d) => evidence.has(articleOf(d)));
  const weight = new Map(terms.filter((t) => t.df > 0).map((t) => [t.term, t.weight]));
  // a chunk's tokens as the index stores them (chunk-postings.ts): heading path, then content
  const tokensOf = (h: RetrievalHit) => tokenize(h.headingPath ? `${h.headingPath}\n${h.content}` : h.content);
  const top = hits[0] ? tokensOf(hits[0]) : [];
  const pos = positions(top);
  const queryTokens = tokenize(q.text);
  const union = new Set<string>();
  for (const h of hits) for (const t of tokensOf(h)) if (weight.has(t)) union.add(t);
  const share = (ts: Iterable<string>) => [...new Set(ts)].reduce((s, t) => s + (weight.get(t) ?? 0), 0);
  const unionShare = share(union);
  return {
    evidenceRank: first + 1,
    bigramShare: pairShare(queryTokens, pos, weight, 1, 1),
    pair3: pairShare(queryTokens, pos, weight, 3, 3),
    win20: windowMass(pos, weight, 20),
    concentration: unionShare > 0 ? share(top) / unionShare : 0,
  };
}

// ---------- baselines ----------
function baselines(list: Doc[], qs: Query[]) {
  const text = (d: Doc) => (titleHeading ? `${d.title}\n${d.text}` : d.text);
  const out: { name: string; m: Metrics; indexMs: number; p50: number; p95: number; ranked: Map<string, string[]> }[] = [];
  const tokCache = new Map<string, string[]>();
  const tok = (s: string) => {
    let t = tokCache.get(s);
    if (!t) tokCache.set(s, (t = tokenize(s)));
    return t;
  };
  // MiniSearch fed our tokens (its own term processing off), and with its default tokenizer.
  for (const variant of ["same tokens", "default tokenizer"] as const) {
    const t0 = performance.now();
    const ms = new MiniSearch<{ id: string; body: string }>({
      fields: ["body"],
      idField: "id",
      ...(variant === "same tokens" ? { tokenize: tok, processTerm: (t: string) => t } : {}),
      searchOptions: variant === "same tokens" ? { tokenize: tok, processTerm: (t: string) => t } : {},
    });
    ms.addAll(list.map((d) => ({ id: d.id, body: text(d) })));
    const indexMs = performance.now() - t0;
    const ranked = new Map<string, string[]>();
    const lat: number[] = [];
    for (const q of qs) {
      const s = performance.now();
      ranked.set(q.id, ms.search(q.text).slice(0, 20).map((r) => String(r.id)));
      lat.push(performance.now() - s);
    }
    out.push({ name: `MiniSearch 7.2 (${variant})`, m: evaluate(ranked, qs), indexMs, p50: pct(lat, 50), p95: pct(lat, 95), ranked });
  }
  {
    const bm25 = (require("wink-bm25-text-search") as () => WinkEngine)();
    const t0 = performance.now();
    bm25.defineConfig({ fldWeights: { body: 1 }, bm25Params: { k1: 1.2, b: 0.75, k: 1 } });
    bm25.definePrepTasks([tok]);
    list.forEach((d, i) => bm25.addDoc({ body: text(d) }, i));
    bm25.consolidate();
    const indexMs = performance.now() - t0;
    const ranked = new Map<string, string[]>();
    const lat: number[] = [];
    for (const q of qs) {
      const s = performance.now();
      ranked.set(q.id, bm25.search(q.text, 20).map(([i]) => list[Number(i)]!.id));
      lat.push(performance.now() - s);
    }
    out.push({ name: "wink-bm25-text-search 3.1 (same tokens)", m: evaluate(ranked, qs), indexMs, p50: pct(lat, 50), p95: pct(lat, 95), ranked });
  }
  return out;
}
interface WinkEngine {
  defineConfig(c: unknown): void;
  definePrepTasks(t: ((s: string) => string[])[]): void;
  addDoc(d: Record<string, string>, id: number): void;
  consolidate(): void;
  search(q: string, limit: number): [number | string, number][];
}
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);

// ---------- abstention ----------
// --features-out FILE: one JSON line per abstention question (half, answerable or not, the
// answerability features of the default run) for scripts/fit-answerability.ts.
const featuresOut = arg("features-out");

async function abstention(lines: string[]) {
  const articles = [...new Set(docs.map((d) => articleOf(d.id)))];
  const unit = sentenceIds ? "articles" : "documents";
  const minScore = 0.5;
  const featureRows: string[] = [];
  lines.push("", "### Abstention (unanswerable questions)", "");
  lines.push(
    `Half of the ${unit} are indexed (even or odd position in the corpus), the questions whose evidence is all in the other half are asked (their answers are not in the KB); ` +
      `questions with evidence in both halves are left out. Both halves are tried in turn. A question \"abstains\" when no hit reaches min_score ${minScore}; ` +
      `an answerable question that abstains is "wrongly refused" (grounded mode would answer NO_RELEVANT_CONTEXT). ` +
      `Answerable Recall@5 is measured without a threshold and with it (hits below ${minScore} removed).`,
    "",
    "| indexed half | unanswerable asked | abstained | answerable asked | wrongly refused | Recall@5 (no threshold) | Recall@5 (min_score 0.5) | drop |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  );
  const artsOfQuery = (q: Query) => [...qrels.get(q.id)!.keys()].map(articleOf);
  const ratios: { answerable: number[]; unanswerable: number[] } = { answerable: [], unanswerable: [] };
  // --taus a,b,…: the τ values of the trade-off table ("none" = no cap); default the list below.
  const taus: (number | null)[] = arg("taus")
    ? arg("taus")!.split(",").map((x) => (x === "none" ? null : Number(x)))
    : [null, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5];
  const tradeoff: string[] = [];
  for (const parity of [0, 1]) {
    const inKb = new Set(articles.filter((_, i) => i % 2 === parity));
    const h = await openFresh();
    try {
      const db = h.prisma;
      const kb = await createKb(db, `abstention-${parity}`);
      const { chunkToDoc } = await indexDocs(db, kb, docs.filter((d) => inKb.has(articleOf(d.id))));
      const answerable = queries.filter((q) => artsOfQuery(q).every((x) => inKb.has(x)));
      const unanswerable = queries.filter((q) => artsOfQuery(q).every((x) => !inKb.has(x)));
      const a = await runQueries(db, kb, chunkToDoc, answerable, 5);
      const u = await runQueries(db, kb, chunkToDoc, unanswerable, 5);
      const abstained = unanswerable.filter((q) => (u.top.get(q.id)!.scores[0] ?? 0) < minScore).length;
      const refused = answerable.filter((q) => (a.top.get(q.id)!.scores[0] ?? 0) < minScore).length;
      for (const [set, label] of [[a, 1], [u, 0]] as const) {
        for (const [qid, t] of set.top) featureRows.push(JSON.stringify({ dataset: datasetName, half: parity, qid, answerable: label, ...(t.features ?? { coverage: 0, matchedShare: 0, absentShare: 0 }) }));
      }
      const thresholded = new Map<string, string[]>();
      for (const q of answerable) {
        const t = a.top.get(q.id)!;
        thresholded.set(q.id, t.docs.filter((_, i) => t.scores[i]! >= minScore));
        ratios.answerable.push(t.scores[0] ?? 0);
      }
      for (const q of unanswerable) ratios.unanswerable.push(u.top.get(q.id)!.scores[0] ?? 0);
      const r0 = evaluate(a.ranked, answerable).r5;
      const r1 = evaluate(thresholded, answerable).r5;
      // Other answerability thresholds τ (and none: the per-hit lexical calibration alone).
      for (const tau of taus) {
        const ta = await runQueries(db, kb, chunkToDoc, answerable, 5, tau);
        const tu = await runQueries(db, kb, chunkToDoc, unanswerable, 5, tau);
        const ab = unanswerable.filter((q) => (tu.top.get(q.id)!.scores[0] ?? 0) < minScore).length;
        const rf = answerable.filter((q) => (ta.top.get(q.id)!.scores[0] ?? 0) < minScore).length;
        const th = new Map<string, string[]>();
        for (const q of answerable) {
          const t = ta.top.get(q.id)!;
          th.set(q.id, t.docs.filter((_, i) => t.scores[i]! >= minScore));
        }
        const rm = evaluate(th, answerable).r5;
        const label = tau === null ? "none (per-hit calibration only)" : `${tau}${tau === ANSWERABILITY.tau ? " (default)" : ""}`;
        tradeoff.push(`| ${parity === 0 ? "even" : "odd"} | ${label} | ${f1((100 * ab) / unanswerable.length)}% | ${f1((100 * rf) / answerable.length)}% | ${f3(rm)} | ${f1(100 * (r0 - rm))} pts |`);
      }
      lines.push(
        `| ${parity === 0 ? "even" : "odd"} ${unit} (${inKb.size}) | ${unanswerable.length} | ${abstained} (${f1((100 * abstained) / unanswerable.length)}%) | ${answerable.length} | ${refused} (${f1((100 * refused) / answerable.length)}%) | ${f3(r0)} | ${f3(r1)} | ${f1(100 * (r0 - r1))} pts |`,
      );
      console.log(lines[lines.length - 1]);
    } finally {
      await h.close();
      if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
    }
  }
  lines.push(
    "",
    "Trade-off over the answerability threshold τ (min_score 0.5 then keeps hits only when P(answerable) ≥ τ; calibrate.ts):",
    "",
    "| indexed half | τ | unanswerable abstained | answerable wrongly refused | answerable Recall@5 | drop |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...tradeoff,
  );
  if (featuresOut) writeFileSync(featuresOut, featureRows.join("\n") + "\n");
  // Distribution of the top hit's calibrated score (what min_score is compared with).
  const q = (xs: number[], p: number) => f3(pct(xs, p));
  lines.push(
    "",
    "Top-hit calibrated score, percentiles p10 / p25 / p50 / p75 / p90:",
    "",
    `- answerable: ${[10, 25, 50, 75, 90].map((p) => q(ratios.answerable, p)).join(" / ")}`,
    `- unanswerable: ${[10, 25, 50, 75, 90].map((p) => q(ratios.unanswerable, p)).join(" / ")}`,
  );
}

// ---------- scale ----------
// --scale-headings: the synthetic files get headings as real documents have them — a document
// title (a random article title of the dataset) over every chunk and a section title (another one)
// over each 20 chunks — so the section-shared heading evidence (heading_term_runs) is exercised.
const scaleHeadings = flag("scale-headings");

async function scaleRun(lines: string[]) {
  // Synthetic chunks made of 3 random real sentences each (so term statistics look like real
  // text, scaled up), in files of 200 chunks; the real queries are asked against them.
  const h = await openFresh();
  try {
    const db = h.prisma;
    // --reuse-db: the scaled KB built by an earlier run in that directory is queried again
    // (building 200k chunks takes many minutes; the latency is measured on its own).
    const kbName = `scale-${scale}${scaleHeadings ? "-headings" : ""}`;
    const prior = reuseDir ? await db.knowledge.findFirst({ where: { name: kbName } }) : null;
    const kb = prior?.id ?? (await createKb(db, kbName));
    let rnd = 42;
    const next = () => ((rnd = (rnd * 1103515245 + 12345) & 0x7fffffff), rnd);
    const titles = [...new Set(docs.map((d) => d.title).filter(Boolean))];
    const perFile = 200;
    const t0 = performance.now();
    for (let f = 0; !prior && f * perFile < scale; f++) {
      const fileId = `${kb}-f${f}`;
      await db.knowledgeFile.create({
        data: { id: fileId, knowledgeId: kb, name: `synthetic-${f}.txt`, fileType: "txt", mimeType: "text/plain", size: 1n, sha256: fileId, storageKey: fileId, status: "success" },
      });
      const n = Math.min(perFile, scale - f * perFile);
      const docTitle = scaleHeadings && titles.length ? titles[next() % titles.length]! : "";
      let sectionTitle = "";
      await replaceFileChunks(db, {
        knowledgeId: kb,
        fileId,
        chunks: Array.from({ length: n }, (_, i) => {
          if (scaleHeadings && titles.length && i % 20 === 0) sectionTitle = titles[next() % titles.length]!;
          return {
            ordinal: i,
            content: [0, 1, 2].map(() => docs[next() % docs.length]!.text).join(" "),
            pageStart: null,
            pageEnd: null,
            headingPath: scaleHeadings ? `${docTitle} > ${sectionTitle}` : "",
          };
        }),
      });
      if (f % 100 === 0) console.log(`  indexed ${(f + 1) * perFile} chunks, ${f1((performance.now() - t0) / 1000)} s`);
    }
    const indexMs = performance.now() - t0;
    const qs = queries.slice(0, Math.min(queries.length, 300));
    const ctx = ctxFor(kb);
    for (const q of qs.slice(0, 10)) await retrieve({ query: q.text, topK: 8, knowledgeBaseIds: [kb] }, ctx, { db, postingsCap, bm25Delta });
    const lat: number[] = [];
    const dump: string[] = [];
    for (const q of qs) {
      const s = performance.now();
      const res = await retrieve({ query: q.text, topK: 8, knowledgeBaseIds: [kb] }, ctx, { db, postingsCap, bm25Delta });
      lat.push(performance.now() - s);
      if (arg("dump")) dump.push(JSON.stringify({ q: q.id, hits: res.hits.map((x) => [x.chunkId, x.score]) }));
    }
    if (arg("dump")) {
      // Chunk ids are random per build: name each hit by its file's position and its ordinal.
      const ids = [...new Set(dump.flatMap((l) => (JSON.parse(l) as { hits: [string, number][] }).hits.map((x) => x[0])))];
      const pos = new Map(
        (await db.$queryRawUnsafe<{ id: string; f: string; o: number }[]>(`SELECT id, file_id AS f, ordinal AS o FROM chunks WHERE id = ANY($1::text[])`, ids)).map((r) => [
          r.id,
          `${r.f.slice(r.f.lastIndexOf("-f") + 2)}/${r.o}`,
        ]),
      );
      writeFileSync(arg("dump")!, dump.map((l) => l.replace(/"([0-9a-f-]{36})"/g, (_, id: string) => `"${pos.get(id) ?? id}"`)).join("\n") + "\n");
    }
    const stats = await db.$queryRawUnsafe<{ n: number; t: number; r: number }[]>(
      `SELECT (SELECT count(*) FROM chunks WHERE knowledge_id = $1)::int AS n, (SELECT coalesce(sum(posting_count(postings)), 0) FROM posting_pages WHERE knowledge_id = $1)::int AS t,
              ${await headingRunsCount(db, "$1")} AS r`,
      kb,
    );
    lines.push(
      "",
      `### Scale: ${scale.toLocaleString("en")} chunks (${h.kind})${scaleHeadings ? ", with headings" : ""}`,
      "",
      `Synthetic chunks of three random ${datasetName} sentences each (${stats[0]!.n.toLocaleString("en")} chunks, ${stats[0]!.t.toLocaleString("en")} postings, ${stats[0]!.r.toLocaleString("en")} heading runs), files of ${perFile} chunks${scaleHeadings ? " (heading path: a random article title over the file and another over each 20 chunks)" : ""}, indexed through replaceFileChunks${prior ? " by an earlier run (--reuse-db; index time not measured here)" : ""}; ${qs.length} real queries, topK 8 (pool 16).`,
      "",
      "| index time | query mean | p50 | p95 |",
      "| ---: | ---: | ---: | ---: |",
      `| ${prior ? "—" : `${f1(indexMs / 1000)} s`} | ${f1(mean(lat))} ms | ${f1(pct(lat, 50))} ms | ${f1(pct(lat, 95))} ms |`,
    );
  } finally {
    await h.close();
    if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
  }
}

/** SQL for the KB's heading-run count, or 0 on a schema without them (the same script measures main). */
async function headingRunsCount(db: PrismaClient, kbParam: string): Promise<string> {
  const [t] = await db.$queryRawUnsafe<{ ok: boolean }[]>(`SELECT to_regclass('heading_term_runs') IS NOT NULL AS ok`);
  return t?.ok ? `(SELECT count(*) FROM heading_term_runs WHERE knowledge_id = ${kbParam})::int` : "0";
}

// ---------- main ----------
async function main() {
  const lines: string[] = [];
  const started = new Date().toISOString().slice(0, 16).replace("T", " ");
  const section = (scale ? `${datasetName}-scale-${scale}${scaleHeadings ? "-headings" : ""}` : flag("abstention-only") ? `${datasetName}-abstention` : datasetName) + (titleHeading || scale ? "" : "-text-only");
  lines.push(
    `## ${datasetName}${scale ? ` — ${scale.toLocaleString("en")}-chunk latency` : ""}`,
    "",
    `Measured ${started} UTC on ${cpus().length} × ${cpus()[0]?.model.trim() ?? "cpu"}, Node ${process.version}, ${databaseUrl ? "PostgreSQL server" : "embedded PGlite"}. ` +
      `Command: \`node --conditions=react-server --import tsx scripts/bench-retrieval.ts ${argv.join(" ")}\`. ` +
      `Tokenizer: jieba ${DEFAULT_TOKENIZE_OPTIONS.searchMode ? "search mode" : "default mode"}${DEFAULT_TOKENIZE_OPTIONS.cjkBigrams ? " + CJK bigrams" : ""}, Porter stemming, stop words; ` +
      `lexical calibration midpoint ${calibration?.midpoint ?? DEFAULT_LEXICAL_CALIBRATION.midpoint}, slope ${DEFAULT_LEXICAL_CALIBRATION.slope}; answerability cap τ ${ANSWERABILITY.tau}.`,
  );
  if (scale) {
    await scaleRun(lines);
  } else if (flag("abstention-only")) {
    // Only the abstention experiment (fitting the answerability model); its own section.
    lines[0] = `## ${datasetName} — abstention`;
    await abstention(lines);
  } else {
    const h = await openFresh();
    let main: { m: Metrics; indexMs: number; lat: number[]; files: number; chunks: number; ranked: Map<string, string[]>; postings: number; runs: number };
    try {
      const db = h.prisma;
      const prior = reuseDir ? await db.knowledge.findFirst({ where: { name: `${datasetName}${titleHeading ? "+title" : ""}` } }) : null;
      const kb = prior?.id ?? (await createKb(db, `${datasetName}${titleHeading ? "+title" : ""}`));
      const { chunkToDoc, ms, files } = await indexDocs(db, kb, docs, !!prior);
      console.log(`indexed ${docs.length} docs in ${files} files: ${f1(ms / 1000)} s`);
      const r = await runQueries(db, kb, chunkToDoc, queries);
      // --dump FILE: each query's ranked documents and scores, one JSON line per query (to compare
      // two versions' rankings hit by hit).
      if (arg("dump")) writeFileSync(arg("dump")!, queries.map((q) => JSON.stringify({ q: q.id, ...r.top.get(q.id), features: undefined })).join("\n") + "\n");
      // What the index stores (the write cost of a ranking change shows here).
      const [st] = await db.$queryRawUnsafe<{ t: number; r: number }[]>(
        `SELECT (SELECT coalesce(sum(posting_count(postings)), 0) FROM posting_pages WHERE knowledge_id = $1)::int AS t, ${await headingRunsCount(db, "$1")} AS r`,
        kb,
      );
      main = { m: evaluate(r.ranked, queries), indexMs: ms, lat: r.lat, files, chunks: chunkToDoc.size, ranked: r.ranked, postings: st?.t ?? 0, runs: st?.r ?? 0 };
    } finally {
      await h.close();
      if (tmpDir && !reuseDir) rmSync(tmpDir, { recursive: true, force: true });
    }
    lines.push(
      "",
      `${docs.length.toLocaleString("en")} documents as ${main.chunks.toLocaleString("en")} chunks in ${main.files.toLocaleString("en")} files (${sentenceIds ? "one file per article" : "one file per document"}${titleHeading ? ", title indexed as heading path" : ", text only"}; ${main.postings.toLocaleString("en")} postings, ${main.runs.toLocaleString("en")} heading runs); ${queries.length.toLocaleString("en")} queries; lexical only (no embedding model), default MMR (λ 0.85), topK 20, candidate pool 40.`,
      "",
      "| system | nDCG@10 | Recall@5 | Recall@20 | MRR@10 | index time | query p50 | query p95 |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
      `| **retrieve() — BM25 in SQL (${h.kind})** | **${f3(main.m.ndcg10)}** | ${f3(main.m.r5)} | ${f3(main.m.r20)} | ${f3(main.m.mrr10)} | ${f1(main.indexMs / 1000)} s | ${f1(pct(main.lat, 50))} ms | ${f1(pct(main.lat, 95))} ms |`,
    );
    console.log(lines[lines.length - 1]);
    if (!flag("no-baselines")) {
      const peers = baselines(docs, queries);
      for (const b of peers) {
        lines.push(`| ${b.name} | ${f3(b.m.ndcg10)} | ${f3(b.m.r5)} | ${f3(b.m.r20)} | ${f3(b.m.mrr10)} | ${f1(b.indexMs / 1000)} s (in memory) | ${f1(b.p50)} ms | ${f1(b.p95)} ms |`);
        console.log(lines[lines.length - 1]);
      }
      const sameTokens = peers.filter((b) => b.name.includes("same tokens"));
      const best = sameTokens.reduce((a, b) => (b.m.ndcg10 > a.m.ndcg10 ? b : a));
      const bestP95 = Math.min(...sameTokens.map((b) => b.p95));
      lines.push(
        "",
        `Query latency of retrieve(): mean ${f1(mean(main.lat))} ms (includes tokenizing, SQL BM25 with the hits' chunks, MMR); p95 ${f1(pct(main.lat, 95) / Math.max(bestP95, 0.1))} × the faster in-memory peer's.`,
        "",
        `Per half of the questions (even / odd position in queries.jsonl) and the 95 % paired-bootstrap interval of retrieve()'s nDCG@10 minus the best peer's (${best.name}); the recall differences (retrieve() minus that peer) to four decimals, where the three-decimal figures tie:`,
        "",
        "| questions | retrieve() nDCG@10 / R@5 / R@20 | best peer nDCG@10 / R@5 / R@20 | difference | 95 % interval | R@5 difference | R@20 difference |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
      );
      const ours = ndcgPerQuery(main.ranked, queries);
      const theirs = ndcgPerQuery(best.ranked, queries);
      for (const [label, h] of [["all", -1], ["even", 0], ["odd", 1]] as const) {
        const qs = h < 0 ? queries : halfOf(queries, h);
        const a = h < 0 ? ours : halfOf(ours, h);
        const b = h < 0 ? theirs : halfOf(theirs, h);
        const mo = evaluate(main.ranked, qs);
        const mb = evaluate(best.ranked, qs);
        const [lo, hi] = bootstrapInterval(a, b);
        lines.push(`| ${label} (${qs.length}) | ${f3(mo.ndcg10)} / ${f3(mo.r5)} / ${f3(mo.r20)} | ${f3(mb.ndcg10)} / ${f3(mb.r5)} / ${f3(mb.r20)} | ${(mo.ndcg10 - mb.ndcg10).toFixed(4)} | [${lo.toFixed(4)}, ${hi.toFixed(4)}] | ${(mo.r5 - mb.r5).toFixed(4)} | ${(mo.r20 - mb.r20).toFixed(4)} |`);
        console.log(lines[lines.length - 1]);
      }
    }
    if (!flag("no-abstention")) await abstention(lines);
  }
  const text = lines.join("\n");
  console.log(`\n${text}\n`);
  if (outFile !== "-") {
    const begin = `<!-- bench:${section} -->`;
    const end = `<!-- /bench:${section} -->`;
    let doc = existsSync(outFile)
      ? readFileSync(outFile, "utf8")
      : "# Retrieval benchmarks\n\nWritten by `scripts/bench-retrieval.ts`; each section is replaced when its run is repeated.\n";
    const block = `${begin}\n${text}\n${end}`;
    const re = new RegExp(`${begin}[\\s\\S]*?${end}`);
    doc = re.test(doc) ? doc.replace(re, block) : `${doc.trimEnd()}\n\n${block}\n`;
    writeFileSync(outFile, doc);
    console.log(`wrote ${outFile}`);
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
