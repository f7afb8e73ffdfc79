// KB evaluation benchmark (a figure, not a test; issue 21). Indexes a dataset in the shared
// format (one file per document, named by its id) into a fresh embedded database through the
// real index writer, then runs question sets through the evaluation runner — the background
// job the Evaluation tab starts — and reports its metrics, time per question and the process's
// peak heap and RSS (sampled every 100 ms). Run with the react-server condition:
//
//   npm run bench:evaluation -- --dataset ../shared/bench/scifact-train [--questions 10000]
//
// The dataset's queries are asked with their first relevant document (qrels) as expected file;
// --questions N cycles them up to N questions (a 10,000-question set). --out FILE appends the
// figures (default: print only).
import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";

const argv = process.argv.slice(2);
const arg = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const datasetDir = arg("dataset");
if (!datasetDir) {
  console.error("usage: bench-evaluation --dataset DIR [--questions N] [--out FILE]");
  process.exit(2);
}
const wanted = Number(arg("questions") ?? 0);
const outFile = arg("out");

const dataDir = mkdtempSync(path.join(tmpdir(), "ka-bench-eval-"));
process.env.DATA_DIR = dataDir;
process.env.AUTH_MODE = "local";
process.env.SEED_SAMPLE = "false";
delete process.env.DATABASE_URL;
for (const k of ["AI_CHAT_MODEL", "EMBEDDING_MODEL", "RERANK_MODEL"]) delete process.env[k];

const readJsonl = <T>(f: string): T[] =>
  readFileSync(f, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

async function main() {
  const { closeDb, getDb } = await import("@/lib/db/client");
  const { replaceFileChunks } = await import("@/lib/retrieval/index-writer");
  const { createRun, createSet, getRun } = await import("@/lib/retrieval/evaluation/store");
  const { evaluationRunnerIdle } = await import("@/lib/retrieval/evaluation/runner");
  const docs = readJsonl<{ id: string; title: string; text: string }>(path.join(datasetDir!, "corpus.jsonl"));
  const queries = readJsonl<{ id: string; text: string }>(path.join(datasetDir!, "queries.jsonl"));
  const firstRel = new Map<string, string>();
  for (const line of readFileSync(path.join(datasetDir!, "qrels.tsv"), "utf8").split("\n").slice(1)) {
    const [q, d, s] = line.split("\t");
    if (q && d && Number(s) > 0 && !firstRel.has(q)) firstRel.set(q, d);
  }
  const db = await getDb();
  const run = Date.now().toString(36);
  const uid = `bench-u-${run}`;
  const kb = `bench-kb-${run}`;
  await db.user.create({ data: { id: uid, email: `${uid}@bench.local`, name: "bench" } });
  await db.knowledge.create({ data: { id: kb, name: "bench", ownerId: uid } });
  await db.knowledgeMember.create({ data: { knowledgeId: kb, userId: uid, role: "owner" } });
  const t0 = performance.now();
  for (const [i, d] of docs.entries()) {
    const fileId = `${kb}-f${i}`;
    await db.knowledgeFile.create({ data: { id: fileId, knowledgeId: kb, name: `${d.id}.txt`, fileType: "txt", mimeType: "text/plain", size: 1n, sha256: fileId, storageKey: fileId, status: "success", chunkCount: 1 } });
    await replaceFileChunks(db, { knowledgeId: kb, fileId, chunks: [{ ordinal: 0, content: `${d.title}\n${d.text}`, pageStart: null, pageEnd: null, headingPath: "" }] });
    if (i % 1000 === 0) console.log(`  indexed ${i} documents, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  await db.$executeRawUnsafe("ANALYZE chunks");
  console.log(`indexed ${docs.length} documents in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const base = queries.filter((q) => firstRel.has(q.id)).map((q) => ({ question: q.text, expected_file: `${firstRel.get(q.id)}.txt`, expected_page: null, expected_text: null, unanswerable: false, chunk_id: null }));
  const n = wanted > 0 ? wanted : base.length;
  const questions = Array.from({ length: n }, (_, i) => base[i % base.length]!);
  const set = await createSet(kb, uid, `bench ${n}`, { questions, errors: [], errorCount: 0 });

  let peakHeap = 0;
  let peakRss = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  };
  global.gc?.();
  sample();
  const heapBefore = process.memoryUsage().heapUsed;
  const timer = setInterval(sample, 100);
  const load0 = loadavg();
  const s = performance.now();
  const r = await createRun(kb, uid, set.id, null);
  await evaluationRunnerIdle();
  const took = (performance.now() - s) / 1000;
  clearInterval(timer);
  const done = await getRun(kb, r.id);
  const m = done.metrics!;
  const mb = (x: number) => (x / 1024 / 1024).toFixed(0);
  const lines = [
    ``,
    `### bench:evaluation ${new Date().toISOString()} — ${path.basename(datasetDir!)}, ${docs.length} documents, ${n} questions (PGlite)`,
    ``,
    `status ${done.status}, ${done.done}/${done.total} questions in ${took.toFixed(1)} s (${((took * 1000) / n).toFixed(1)} ms per question); heap before ${mb(heapBefore)} MB, peak heap ${mb(peakHeap)} MB, peak RSS ${mb(peakRss)} MB; load average at start ${load0.map((x) => x.toFixed(1)).join(" / ")}, at end ${loadavg().map((x) => x.toFixed(1)).join(" / ")}`,
    ``,
    `nDCG@10 ${m.ndcg_at_10?.toFixed(3)} · Recall@5 ${m.recall_at_5?.toFixed(3)} · Recall@20 ${m.recall_at_20?.toFixed(3)} · MRR@10 ${m.mrr_at_10?.toFixed(3)} · refused (answerable) ${m.refusal_rate_answerable?.toFixed(3)} at min_score ${done.settings.min_score}`,
  ];
  console.log(lines.join("\n"));
  if (outFile) appendFileSync(outFile, lines.join("\n") + "\n");
  await closeDb();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
