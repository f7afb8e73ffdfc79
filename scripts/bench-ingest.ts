// Ingestion benchmark: parse + chunk + index throughput and peak memory on a generated corpus
// (200 PDF pages and ~2 MB of text), written to docs/benchmarks-ingest.md.
//
//   node --conditions=react-server --import tsx scripts/bench-ingest.ts [--pdf-pages 200] [--text-mb 2]
//        [--no-write] [--chunk-experiment]
//
// `--conditions=react-server` makes the `server-only` package resolve to its empty export, so the
// real server modules run unchanged. The corpus is generated first (real text: Chinese Wikipedia
// sentences of CMRC 2018 and English SciFact abstracts from /work/shared/bench, or BENCH_DATA_DIR;
// synthetic text when absent), then a child process measures, so the peak RSS reported is that
// of ingestion alone. The database is a fresh embedded PGlite (or BENCH_DATABASE_URL).
//
// --chunk-experiment: the small measurement behind the chunk size defaults (BM25 over chunks of
// long documents built from the benchmark sets; see the doc).
import { spawnSync } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { PDFDocument } from "pdf-lib";
import { cjkFont, fixedMetadata, layoutPdf, type Section } from "./make-fixtures";

const ROOT = path.resolve(import.meta.dirname, "..");
const BENCH_DATA = process.env.BENCH_DATA_DIR ?? "/work/shared/bench";
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};

interface Row {
  id: string;
  title: string;
  text: string;
}

function readJsonl(file: string): Row[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);
}

/** CMRC contexts (sentences regrouped per context) — real Chinese prose. */
function chineseContexts(): Array<{ title: string; text: string }> {
  const rows = readJsonl(path.join(BENCH_DATA, "cmrc2018-sent", "corpus.jsonl"));
  if (!rows.length) return syntheticChinese();
  const byCtx = new Map<string, { title: string; parts: string[] }>();
  for (const r of rows) {
    const key = r.id.split("-s")[0]!;
    const e = byCtx.get(key) ?? { title: r.title, parts: [] };
    e.parts.push(r.text);
    byCtx.set(key, e);
  }
  return [...byCtx.values()].map((e) => ({ title: e.title, text: e.parts.join("") }));
}

function englishAbstracts(): Array<{ title: string; text: string }> {
  const rows = readJsonl(path.join(BENCH_DATA, "scifact-train", "corpus.jsonl"));
  if (!rows.length) return syntheticEnglish();
  return rows.map((r) => ({ title: r.title, text: r.text }));
}

function syntheticChinese(): Array<{ title: string; text: string }> {
  const words = "知识库 检索 文档 解析 页码 标题 段落 用户 管理员 服务器 数据库 向量 模型 答案 引用 来源 上传 索引 进度 失败 成功 配置 部署 安全 权限".split(" ");
  let seed = 1;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  return Array.from({ length: 900 }, (_, i) => ({
    title: `第${i + 1}节`,
    text: Array.from({ length: 12 }, () => Array.from({ length: 14 }, () => words[Math.floor(rnd() * words.length)]).join("") + "。").join(""),
  }));
}

function syntheticEnglish(): Array<{ title: string; text: string }> {
  const words = "knowledge retrieval document parsing page heading paragraph user administrator server database vector model answer citation source upload index progress failure success".split(" ");
  let seed = 2;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  return Array.from({ length: 2000 }, (_, i) => ({
    title: `Section ${i + 1}`,
    text: Array.from({ length: 10 }, () => Array.from({ length: 18 }, () => words[Math.floor(rnd() * words.length)]).join(" ") + ".").join(" "),
  }));
}

// ---------------------------------------------------------------------------------------------
// Corpus generation (parent process)

async function makePdf(contexts: Array<{ title: string; text: string }>, pages: number, title: string): Promise<{ data: Uint8Array; pages: number }> {
  // Lay out chapters until the page count is reached (cut the section list by trial).
  const sections: Section[] = contexts.map((c, i) => ({ h1: i % 6 === 0 ? `第${i / 6 + 1}章 ${c.title}` : undefined, h2: `${i + 1}. ${c.title}`, paras: c.text.match(/[^。！？]+[。！？]?/g)?.reduce<string[]>((acc, s) => {
    const last = acc[acc.length - 1];
    if (last !== undefined && last.length < 180) acc[acc.length - 1] = last + s;
    else acc.push(s);
    return acc;
  }, []) ?? [c.text] }));
  let lo = 1;
  let hi = sections.length;
  let best: { data: Uint8Array; pages: number } | null = null;
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const doc = await PDFDocument.create();
    fixedMetadata(doc, title);
    const font = await cjkFont(doc);
    await layoutPdf(sections.slice(0, mid), { title, footer: (n) => `${title} · 第 ${n} 页`, font }, doc);
    const n = doc.getPageCount();
    if (n <= pages) {
      best = { data: await doc.save({ useObjectStreams: false }), pages: n };
      if (n === pages) break;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best!;
}

async function generateCorpus(dir: string, pdfPages: number, textMb: number): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const zh = chineseContexts();
  const en = englishAbstracts();
  // PDFs: 4 documents sharing the page budget.
  const perPdf = Math.ceil(pdfPages / 4);
  let used = 0;
  for (let i = 0; i < 4 && used < pdfPages; i++) {
    const want = Math.min(perPdf, pdfPages - used);
    const slice = zh.slice(i * 220, i * 220 + 220);
    const pdf = await makePdf(slice.length ? slice : zh, want, `基准文档 ${i + 1}`);
    writeFileSync(path.join(dir, `bench-${i + 1}.pdf`), pdf.data);
    used += pdf.pages;
  }
  // Text: half English Markdown (titles as headings), half Chinese plain text.
  const half = (textMb * 1024 * 1024) / 2;
  let md = "# SciFact abstracts\n\n";
  for (const a of en) {
    if (Buffer.byteLength(md) >= half) break;
    md += `## ${a.title}\n\n${a.text}\n\n`;
  }
  writeFileSync(path.join(dir, "bench-en.md"), md);
  let txt = "";
  for (let k = 0; Buffer.byteLength(txt) < half; k++) {
    const c = zh[k % zh.length]!;
    txt += `${c.title}\n\n${c.text}\n\n`;
  }
  writeFileSync(path.join(dir, "bench-zh.txt"), txt);
}

// ---------------------------------------------------------------------------------------------
// Measurement (child process)

interface FileResult {
  name: string;
  bytes: number;
  pages: number | null;
  chunks: number;
  parseMs: number;
  chunkMs: number;
  indexMs: number;
}

async function measure(corpusDir: string, out: string): Promise<void> {
  const { openDatabase } = await import("@/lib/db/client");
  const { parseFile } = await import("@/lib/ingestion/parse");
  const { chunkDocument } = await import("@/lib/ingestion/chunker");
  const { makeBudget } = await import("@/lib/ingestion/types");
  const { sniffPath } = await import("@/lib/ingestion/sniff");
  const { replaceFileChunks } = await import("@/lib/retrieval/index-writer");
  const { runPendingJobs } = await import("@/lib/ingestion/runner");
  const { storeBuffer } = await import("@/lib/ingestion/storage");
  const { recordFile } = await import("@/lib/ingestion/upload");
  const { getEnv } = await import("@/lib/env");
  const env = getEnv();

  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const dataDir = mkdtempSync(path.join(tmpdir(), "ka-bench-ingest-"));
  const handle = await openDatabase({ databaseUrl: process.env.BENCH_DATABASE_URL, dataDir });
  const db = handle.prisma;
  const userId = `bench-${randomUUID()}`;
  await db.user.create({ data: { id: userId, email: `${userId}@bench.test`, name: "bench" } });
  const mkKb = async () => {
    const id = randomUUID();
    await db.knowledge.create({ data: { id, name: "bench", ownerId: userId } });
    return id;
  };

  const names = readdirSync(corpusDir).sort();
  const baselineRss = process.memoryUsage().rss;
  if (process.env.BENCH_TRACE) console.log(`[trace] db open: rss ${Math.round(process.memoryUsage().rss / 1048576)} MB`);
  const files: FileResult[] = [];
  // 1. Stage by stage, one file after another.
  const kb1 = await mkKb();
  const t0 = performance.now();
  for (const name of names) {
    const p = path.join(corpusDir, name);
    const type = await sniffPath(name, p);
    const fileId = randomUUID();
    await db.knowledgeFile.create({
      data: { id: fileId, knowledgeId: kb1, name, fileType: type.fileType, mimeType: type.mimeType, size: BigInt(statSync(p).size), sha256: fileId, storageKey: `${kb1}/${fileId}` },
    });
    let t = performance.now();
    const doc = await parseFile(type.fileType, p, { budget: makeBudget({ maxPages: 100_000, timeoutMs: 600_000 }) });
    const parseMs = performance.now() - t;
    t = performance.now();
    const chunks = chunkDocument(doc, { targetChars: env.CHUNK_TARGET_CHARS, overlapChars: env.CHUNK_OVERLAP_CHARS });
    const chunkMs = performance.now() - t;
    t = performance.now();
    await replaceFileChunks(db, { knowledgeId: kb1, fileId, chunks });
    const indexMs = performance.now() - t;
    files.push({ name, bytes: statSync(p).size, pages: doc.pageCount, chunks: chunks.length, parseMs, chunkMs, indexMs });
    if (process.env.BENCH_TRACE) console.log(`[trace] ${name}: rss ${Math.round(process.memoryUsage().rss / 1048576)} MB, heap ${Math.round(process.memoryUsage().heapUsed / 1048576)} MB, external ${Math.round(process.memoryUsage().external / 1048576)} MB`);
  }
  const stagedMs = performance.now() - t0;

  // 2. End to end through the job runner (uploads recorded, runner drains the queue).
  const kb2 = await mkKb();
  for (const name of names) {
    const data = readFileSync(path.join(corpusDir, name));
    const type = await sniffPath(name, path.join(corpusDir, name));
    const fileId = randomUUID();
    const storageKey = await storeBuffer(kb2, fileId, data, dataDir);
    await recordFile(db, {
      fileId, knowledgeId: kb2, userId, name, fileType: type.fileType, mimeType: type.mimeType, size: data.length,
      sha256: createHash("sha256").update(data).digest("hex"), storageKey, maxKbBytes: Number.MAX_SAFE_INTEGER,
    });
  }
  const t1 = performance.now();
  await runPendingJobs({ db, dataDir, exclusive: !process.env.BENCH_DATABASE_URL, pollMs: 20 });
  const runnerMs = performance.now() - t1;
  const statuses = await db.knowledgeFile.groupBy({ by: ["status"], where: { knowledgeId: kb2 }, _count: true });

  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  const maxRssKb = process.resourceUsage().maxRSS;
  await handle.close();
  rmSync(dataDir, { recursive: true, force: true });
  writeFileSync(
    out,
    JSON.stringify({
      files,
      stagedMs,
      runnerMs,
      concurrency: env.INGEST_CONCURRENCY,
      statuses,
      peakRssBytes: Math.max(peak, maxRssKb * 1024),
      baselineRssBytes: baselineRss,
      db: process.env.BENCH_DATABASE_URL ? "postgresql" : "pglite",
      chunkTarget: env.CHUNK_TARGET_CHARS,
      chunkOverlap: env.CHUNK_OVERLAP_CHARS,
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Chunk-size experiment: BM25 over chunks of long documents.

async function chunkExperiment(): Promise<string> {
  const { tokenize, termFrequencies } = await import("@/lib/retrieval/text/tokenize");
  const { chunkDocument } = await import("@/lib/ingestion/chunker");
  type Doc = { id: string; text: string };
  const lines: string[] = [];

  // Chinese: CMRC contexts concatenated 8 at a time into long documents without headings; a
  // query is answered when a retrieved chunk contains its answer sentence within the first 650
  // characters (what the prompt keeps of a chunk).
  const rows = readJsonl(path.join(BENCH_DATA, "cmrc2018-sent", "corpus.jsonl"));
  const queries = readJsonl(path.join(BENCH_DATA, "cmrc2018-sent", "queries.jsonl"));
  const qrels = existsSync(path.join(BENCH_DATA, "cmrc2018-sent", "qrels.tsv"))
    ? readFileSync(path.join(BENCH_DATA, "cmrc2018-sent", "qrels.tsv"), "utf8").split("\n").slice(1).filter(Boolean).map((l) => l.split("\t"))
    : [];
  if (!rows.length || !queries.length) return "Benchmark sets not found; experiment skipped.";
  const sentence = new Map(rows.map((r) => [r.id, r.text]));
  const ctxOrder: string[] = [];
  const ctx = new Map<string, string[]>();
  for (const r of rows) {
    const k = r.id.split("-s")[0]!;
    if (!ctx.has(k)) {
      ctx.set(k, []);
      ctxOrder.push(k);
    }
    ctx.get(k)!.push(r.text);
  }
  const longDocs: Doc[] = [];
  for (let i = 0; i < ctxOrder.length; i += 8) {
    longDocs.push({ id: `L${i / 8}`, text: ctxOrder.slice(i, i + 8).map((k) => ctx.get(k)!.join("")).join("\n\n") });
  }
  const answers = new Map<string, string>();
  for (const [q, d] of qrels) if (q && d) answers.set(q, sentence.get(d) ?? "");

  // English: SciFact abstracts grouped 4 at a time; a query is answered when a retrieved chunk
  // contains at least half of a relevant abstract's sentences... simpler and stricter: the chunk
  // overlaps the relevant abstract (its text lies inside that abstract's span).
  const sciRows = readJsonl(path.join(BENCH_DATA, "scifact-train", "corpus.jsonl"));
  const sciQueries = readJsonl(path.join(BENCH_DATA, "scifact-train", "queries.jsonl"));
  const sciQrels = existsSync(path.join(BENCH_DATA, "scifact-train", "qrels.tsv"))
    ? readFileSync(path.join(BENCH_DATA, "scifact-train", "qrels.tsv"), "utf8").split("\n").slice(1).filter(Boolean).map((l) => l.split("\t"))
    : [];
  const sciRel = new Map<string, Set<string>>();
  for (const [q, d] of sciQrels) if (q && d) sciRel.set(q, (sciRel.get(q) ?? new Set()).add(d));

  function bm25(chunks: string[]) {
    const toks = chunks.map((c) => tokenize(c));
    const tfs = toks.map((t) => termFrequencies(t));
    const df = new Map<string, number>();
    for (const tf of tfs) for (const term of tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
    const n = chunks.length;
    const avgdl = toks.reduce((s, t) => s + t.length, 0) / n;
    const postings = new Map<string, Array<[number, number]>>();
    tfs.forEach((tf, i) => {
      for (const [term, f] of tf) {
        let p = postings.get(term);
        if (!p) postings.set(term, (p = []));
        p.push([i, f]);
      }
    });
    const k1 = 0.9;
    const b = 0.4;
    return (query: string, k: number): number[] => {
      const scores = new Map<number, number>();
      for (const [term] of termFrequencies(tokenize(query))) {
        const p = postings.get(term);
        if (!p) continue;
        const idf = Math.log(1 + (n - p.length + 0.5) / (p.length + 0.5));
        for (const [i, f] of p) {
          const dl = toks[i]!.length;
          scores.set(i, (scores.get(i) ?? 0) + (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * dl) / avgdl)));
        }
      }
      return [...scores.entries()].sort((a, b2) => b2[1] - a[1]).slice(0, k).map(([i]) => i);
    };
  }

  const configs: Array<[number, number]> = [
    [200, 0], [300, 0], [300, 50], [400, 60], [500, 0], [500, 80], [650, 100], [800, 120], [1000, 150],
  ];
  lines.push("| target / overlap | chunks (zh) | zh answer in top-1 | zh answer in top-3 (≤650 chars) | chunks (en) | en relevant in top-3 | en MRR@10 |");
  lines.push("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const [target, overlap] of configs) {
    // Chinese
    const zhChunks: string[] = [];
    for (const d of longDocs) {
      const doc = { pageCount: null, blocks: d.text.split("\n\n").map((p) => ({ text: p, page: null, headingPath: [], kind: "paragraph" as const })) };
      for (const c of chunkDocument(doc, { targetChars: target, overlapChars: overlap })) zhChunks.push(c.content);
    }
    const searchZh = bm25(zhChunks);
    let top1 = 0;
    let top3 = 0;
    let nq = 0;
    for (const q of queries) {
      const ans = answers.get(q.id);
      if (!ans) continue;
      nq++;
      const hits = searchZh(q.text, 3);
      if (hits[0] !== undefined && zhChunks[hits[0]]!.includes(ans)) top1++;
      if (hits.some((i) => zhChunks[i]!.slice(0, 650).includes(ans))) top3++;
    }
    // English
    const enChunks: Array<{ text: string; docs: Set<string> }> = [];
    for (let i = 0; i < sciRows.length; i += 4) {
      const group = sciRows.slice(i, i + 4);
      const blocks = group.map((r) => ({ text: r.text, page: null, headingPath: [], kind: "paragraph" as const }));
      for (const c of chunkDocument({ pageCount: null, blocks }, { targetChars: target, overlapChars: overlap })) {
        enChunks.push({ text: c.content, docs: new Set(group.filter((r) => c.content.includes(r.text.slice(0, 40)) || r.text.includes(c.content.slice(0, 60).trim())).map((r) => r.id)) });
      }
    }
    const searchEn = bm25(enChunks.map((c) => c.text));
    let enTop3 = 0;
    let mrr = 0;
    let nEn = 0;
    for (const q of sciQueries) {
      const rel = sciRel.get(q.id);
      if (!rel) continue;
      nEn++;
      const hits = searchEn(q.text, 10);
      if (hits.slice(0, 3).some((i) => [...enChunks[i]!.docs].some((d) => rel.has(d)))) enTop3++;
      const rank = hits.findIndex((i) => [...enChunks[i]!.docs].some((d) => rel.has(d)));
      if (rank >= 0) mrr += 1 / (rank + 1);
    }
    lines.push(`| ${target} / ${overlap} | ${zhChunks.length} | ${(top1 / nq).toFixed(3)} | ${(top3 / nq).toFixed(3)} | ${enChunks.length} | ${(enTop3 / nEn).toFixed(3)} | ${(mrr / nEn).toFixed(3)} |`);
    console.log(lines[lines.length - 1]);
  }
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------

const fmt = (n: number, d = 1) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });

async function main() {
  // The server while it indexes (issue 22): scripts/bench-ingest-load.ts.
  if (flag("--under-load")) {
    const { benchIngestUnderLoad } = await import("./bench-ingest-load");
    await benchIngestUnderLoad();
    return;
  }
  if (flag("--measure")) {
    const i = args.indexOf("--measure");
    await measure(args[i + 1]!, args[i + 2]!);
    return;
  }
  if (flag("--chunk-experiment")) {
    const table = await chunkExperiment();
    const out = path.join(tmpdir(), "ka-chunk-experiment.md");
    writeFileSync(out, table + "\n");
    console.log(`\nwritten to ${out}`);
    return;
  }
  const pdfPages = opt("--pdf-pages", 200);
  const textMb = opt("--text-mb", 2);
  const corpusDir = path.join(tmpdir(), `ka-bench-ingest-corpus-${pdfPages}p-${textMb}mb`);
  if (!existsSync(corpusDir) || readdirSync(corpusDir).length === 0) {
    console.log(`generating corpus in ${corpusDir} …`);
    await generateCorpus(corpusDir, pdfPages, textMb);
  }
  const resultFile = path.join(tmpdir(), `ka-bench-ingest-${process.pid}.json`);
  const child = spawnSync(process.execPath, [...process.execArgv, import.meta.filename, "--measure", corpusDir, resultFile], { stdio: "inherit", env: process.env });
  if (child.status !== 0) throw new Error(`measurement failed (exit ${child.status})`);
  const r = JSON.parse(readFileSync(resultFile, "utf8")) as {
    files: FileResult[];
    stagedMs: number;
    runnerMs: number;
    concurrency: number;
    statuses: Array<{ status: string; _count: number }>;
    peakRssBytes: number;
    baselineRssBytes: number;
    db: string;
    chunkTarget: number;
    chunkOverlap: number;
  };
  rmSync(resultFile, { force: true });

  const pdfs = r.files.filter((f) => f.name.endsWith(".pdf"));
  const texts = r.files.filter((f) => !f.name.endsWith(".pdf"));
  const sum = (fs: FileResult[], k: keyof FileResult) => fs.reduce((s, f) => s + (f[k] as number), 0);
  const pages = sum(pdfs, "pages");
  const chunksAll = sum(r.files, "chunks");
  const pdfMs = sum(pdfs, "parseMs") + sum(pdfs, "chunkMs") + sum(pdfs, "indexMs");
  const textBytes = sum(texts, "bytes");
  const textMs = sum(texts, "parseMs") + sum(texts, "chunkMs") + sum(texts, "indexMs");
  const allMs = sum(r.files, "parseMs") + sum(r.files, "chunkMs") + sum(r.files, "indexMs");

  const table = [
    "| file | size | pages | chunks | parse ms | chunk ms | index ms | pages/s (parse+chunk+index) | chunks/s (parse+chunk+index) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...r.files.map((f) => {
      const ms = f.parseMs + f.chunkMs + f.indexMs;
      return `| ${f.name} | ${fmt(f.bytes / 1024 / 1024, 2)} MB | ${f.pages ?? "–"} | ${f.chunks} | ${fmt(f.parseMs, 0)} | ${fmt(f.chunkMs, 0)} | ${fmt(f.indexMs, 0)} | ${f.pages ? fmt(f.pages / (ms / 1000)) : "–"} | ${fmt(f.chunks / (ms / 1000))} |`;
    }),
  ].join("\n");
  const summary = [
    `- PDF: **${pages} pages in ${fmt(pdfMs / 1000, 2)} s → ${fmt(pages / (pdfMs / 1000))} pages/s**, ${sum(pdfs, "chunks")} chunks → ${fmt(sum(pdfs, "chunks") / (pdfMs / 1000))} chunks/s (parse ${fmt(sum(pdfs, "parseMs") / 1000, 2)} s, chunk ${fmt(sum(pdfs, "chunkMs") / 1000, 2)} s, index ${fmt(sum(pdfs, "indexMs") / 1000, 2)} s)`,
    `- Text (Markdown + plain text): **${fmt(textBytes / 1024 / 1024, 2)} MB in ${fmt(textMs / 1000, 2)} s → ${fmt(textBytes / 1024 / 1024 / (textMs / 1000), 2)} MB/s**, ${sum(texts, "chunks")} chunks → ${fmt(sum(texts, "chunks") / (textMs / 1000))} chunks/s`,
    `- All files, one after another: ${chunksAll} chunks in ${fmt(allMs / 1000, 2)} s → **${fmt(chunksAll / (allMs / 1000))} chunks/s**`,
    `- End to end through the job runner (concurrency ${r.concurrency}, progress writes included): ${fmt(r.runnerMs / 1000, 2)} s → ${fmt(pages / (r.runnerMs / 1000))} PDF pages/s equivalent, ${fmt(chunksAll / (r.runnerMs / 1000))} chunks/s; statuses ${r.statuses.map((s) => `${s.status} ${s._count}`).join(", ")}`,
    `- **Peak RSS of the measuring process: ${fmt(r.peakRssBytes / 1024 / 1024, 0)} MB** — of which ${fmt(r.baselineRssBytes / 1024 / 1024, 0)} MB is the process with the database open before the first file (${r.db === "pglite" ? "PGlite's WASM Postgres, Prisma, jieba" : "Prisma, jieba"})`,
  ].join("\n");
  const report = `# Ingestion benchmark

Generated by \`node --conditions=react-server --import tsx scripts/bench-ingest.ts\` on
${new Date().toISOString().slice(0, 10)} — ${cpus().length} cores (${cpus()[0]?.model.trim() ?? "?"}), ${fmt(totalmem() / 1024 ** 3, 0)} GB RAM,
Node ${process.version}, database ${r.db === "pglite" ? "embedded PGlite" : "PostgreSQL server"}, no embedding model (lexical index only),
chunk target ${r.chunkTarget} / overlap ${r.chunkOverlap} characters.

Corpus (generated, real text): ${pdfs.length} PDFs with ${pages} pages of Chinese Wikipedia prose (CMRC 2018 contexts, CJK font
subset-embedded, headings by font size, running footers), an English Markdown file of SciFact abstracts (titles as headings)
and a Chinese plain-text file — ${fmt(textBytes / 1024 / 1024, 2)} MB of text in all. "Index" is \`replaceFileChunks\`: jieba/stemmed
tokens, chunks and term postings written in one transaction.

## Results

${summary}

${table}
`;
  console.log(`\n${report}`);
  if (!flag("--no-write")) {
    const docPath = path.join(ROOT, "docs", "benchmarks-ingest.md");
    mkdirSync(path.dirname(docPath), { recursive: true });
    const prev = existsSync(docPath) ? readFileSync(docPath, "utf8") : "";
    // Keep the hand-written sections that follow the generated part.
    const tail = prev.includes("<!-- end of generated part -->") ? prev.slice(prev.indexOf("<!-- end of generated part -->")) : "<!-- end of generated part -->\n";
    writeFileSync(docPath, `${report}\n${tail}`);
    console.log(`written to ${path.relative(ROOT, docPath)}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
