// Agent tools benchmark (a figure, not a test; issue 17). Indexes a dataset in the shared format
// (or N synthetic chunks made of its sentences) into a fresh embedded database through the real
// index writer, then times every tool through the registry's callTool — the path MCP and agent
// mode use — next to retrieve() in the same run, per query. Run with the react-server condition
// so "server-only" resolves to its empty module:
//
//   npm run bench:tools -- --dataset ../shared/bench/cmrc2018-sent
//   npm run bench:tools -- --dataset ../shared/bench/cmrc2018-sent --scale 200000
//
// Options: --limit N (queries timed, default 200), --out FILE (default docs/bench-tools.md,
// appended; --out - prints only), --database-url URL (PostgreSQL server instead of PGlite),
// --copies K (with --scale: build scale/K chunks through the index writer, then copy files, chunks
// and postings K-1 times in SQL with new ids — the same term and trigram distribution at the full
// row count, in minutes instead of the writer's ~30 min for 200k on a quiet machine),
// --data-dir DIR (keep the PGlite directory there and reuse its index on the next run with the
// same DIR: the 200k index takes ~30 min to build, a plan fix should not),
// --chat-rerank (benchmark size only: knowledge_search with and without the agent mode's
// chat-model rerank, the chat model being the local OpenAI-compatible test server over HTTP —
// a correctness and cost check against no rerank, never a quality claim: the test model scores
// passages by bigram overlap).
// Every run also times grep_chunks on a second owner's 30-chunk knowledge base beside the
// benchmark's (one user's grep must not pay for another's data; otherOwnersGrep below).
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";

const argv = process.argv.slice(2);
const arg = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const datasetDir = arg("dataset");
if (!datasetDir) {
  console.error("usage: bench-tools --dataset DIR [--scale N] [--limit N] [--out FILE] [--database-url URL]");
  process.exit(2);
}
const scale = Number(arg("scale") ?? 0);
const copies = Math.max(1, Number(arg("copies") ?? 1));
const limit = Number(arg("limit") ?? 200);
const outFile = arg("out") ?? "docs/bench-tools.md";
const databaseUrl = arg("database-url");
const chatRerankMode = argv.includes("--chat-rerank");
if (chatRerankMode && (scale > 0 || arg("data-dir"))) {
  console.error("--chat-rerank runs at benchmark size on a fresh index (no --scale, no --data-dir)");
  process.exit(2);
}

interface Doc {
  id: string;
  title: string;
  text: string;
}
const readJsonl = <T>(f: string): T[] =>
  readFileSync(f, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
const docs = readJsonl<Doc>(path.join(datasetDir, "corpus.jsonl"));
const queries = readJsonl<{ id: string; text: string }>(path.join(datasetDir, "queries.jsonl")).slice(0, limit);

// The app reads its database from the environment: a throwaway PGlite directory unless a server is given.
const keptDir = arg("data-dir");
if (keptDir) mkdirSync(keptDir, { recursive: true });
const dataDir = keptDir ? path.resolve(keptDir) : mkdtempSync(path.join(tmpdir(), "ka-bench-tools-"));
const metaFile = path.join(dataDir, "bench-tools-meta.json");
const kept = keptDir && existsSync(metaFile) ? (JSON.parse(readFileSync(metaFile, "utf8")) as { uid: string; kb: string; n: number; files: number; indexS: number }) : null;
process.env.DATA_DIR = dataDir;
process.env.AUTH_MODE = "local";
process.env.SEED_SAMPLE = "false";
if (databaseUrl) process.env.DATABASE_URL = databaseUrl;
else delete process.env.DATABASE_URL;
for (const k of ["AI_CHAT_MODEL", "EMBEDDING_MODEL", "RERANK_MODEL"]) delete process.env[k];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]! : 0;
};
const f1 = (x: number) => x.toFixed(1);

/** (file id "/" chunk index) → the dataset's document id, for the --chat-rerank comparison. */
const docOfChunk = new Map<string, string>();

async function main() {
  const { closeDb, getDb, getDbKind } = await import("@/lib/db/client");
  const { replaceFileChunks } = await import("@/lib/retrieval/index-writer");
  const { getRetrievalRuntime } = await import("@/lib/retrieval/runtime");
  const { tokenize } = await import("@/lib/retrieval/text/tokenize");
  const { callTool } = await import("@/lib/tools/registry");
  const db = await getDb();
  const run = Date.now().toString(36);
  const uid = kept?.uid ?? `bench-u-${run}`;
  const kb = kept?.kb ?? `bench-kb-${run}`;
  let n = kept?.n ?? 0;
  let fileCount = kept?.files ?? 0;
  let indexS = kept?.indexS ?? 0;
  if (!kept) {
  await db.user.create({ data: { id: uid, email: `${uid}@bench.local`, name: "bench" } });
  await db.knowledge.create({ data: { id: kb, name: "bench", ownerId: uid } });
  await db.knowledgeMember.create({ data: { knowledgeId: kb, userId: uid, role: "owner" } });

  // Files of real articles (sentence corpora grouped per article), or synthetic files of 200
  // chunks of three random sentences each (the scaled set of bench-retrieval).
  const t0 = performance.now();
  const files: Array<{ name: string; chunks: string[]; docIds?: string[] }> = [];
  if (scale > 0) {
    let rnd = 42;
    const next = () => ((rnd = (rnd * 1103515245 + 12345) & 0x7fffffff), rnd);
    const built = Math.ceil(scale / copies);
    for (let f = 0; f * 200 < built; f++) {
      files.push({ name: `synthetic-${f}.txt`, chunks: Array.from({ length: Math.min(200, built - f * 200) }, () => [0, 1, 2].map(() => docs[next() % docs.length]!.text).join(" ")) });
    }
  } else {
    const groups = new Map<string, Doc[]>();
    for (const d of docs) {
      const a = d.id.replace(/-s\d+$/, "");
      if (!groups.has(a)) groups.set(a, []);
      groups.get(a)!.push(d);
    }
    for (const [a, ds] of groups) files.push({ name: ds[0]!.title || a, chunks: ds.map((d) => d.text), docIds: ds.map((d) => d.id) });
  }
  for (const [i, f] of files.entries()) {
    const fileId = `${kb}-f${i}`;
    await db.knowledgeFile.create({
      data: { id: fileId, knowledgeId: kb, name: f.name, fileType: "txt", mimeType: "text/plain", size: 1n, sha256: fileId, storageKey: fileId, status: "success", chunkCount: f.chunks.length },
    });
    await replaceFileChunks(db, { knowledgeId: kb, fileId, chunks: f.chunks.map((content, ordinal) => ({ ordinal, content, pageStart: null, pageEnd: null, headingPath: "" })) });
    n += f.chunks.length;
    if (i % 100 === 0) console.log(`  indexed ${n} chunks, ${f1((performance.now() - t0) / 1000)} s`);
  }
  fileCount = files.length;
  for (const [i, f] of files.entries()) for (const [o, d] of (f.docIds ?? []).entries()) docOfChunk.set(`${kb}-f${i}/${o}`, d);
  for (let k = 1; k < copies; k++) {
    // Every column copied as is, except the ids and the per-KB unique ones, which get a suffix.
    const suffixed = new Set(["id", "file_id", "chunk_id", "sha256", "storage_key", "name"]);
    for (const table of ["knowledge_files", "chunks", "posting_pages"]) {
      const cols = (await db.$queryRawUnsafe<Array<{ c: string }>>(`SELECT column_name AS c FROM information_schema.columns WHERE table_name = $1 AND table_schema = current_schema() ORDER BY ordinal_position`, table)).map((r) => r.c);
      const list = cols.map((c) => `"${c}"`).join(", ");
      // (A page names its chunks by file and ordinal: the file id's suffix carries them over.)
      const expr = (c: string) => (suffixed.has(c) ? `"${c}" || '_c${k}'` : `"${c}"`);
      const exprs = cols.map(expr).join(", ");
      // Originals only, told apart by their file's id: this bench makes those (`<kb>-f<n>`,
      // no underscore) and the copies' hold "_c". Not by a chunk's own id: the first version used
      // "-c", which also occurs inside UUIDs (a group starting with c), so the copies left out
      // about a tenth of the chunks while keeping their postings; and chunk ids are base64url now,
      // which may hold "_c" too.
      const own = `strpos(${table === "knowledge_files" ? "id" : "file_id"}, '_c') = 0`;
      await db.$executeRawUnsafe(`INSERT INTO ${table} (${list}) SELECT ${exprs} FROM ${table} WHERE knowledge_id = $1 AND ${own}`, kb);
    }
    n += n / k;
    fileCount += files.length;
    console.log(`  copy ${k}: ${n} chunks, ${f1((performance.now() - t0) / 1000)} s`);
  }
  // The copies' chunks into grep_chunks' trigram index (the writer put the originals' there).
  if (copies > 1) await db.$executeRawUnsafe(`INSERT INTO chunk_grep (chunk_id, knowledge_id) SELECT id, knowledge_id FROM chunks WHERE knowledge_id = $1 ON CONFLICT DO NOTHING`, kb);
  await db.$executeRawUnsafe("VACUUM ANALYZE");
  indexS = (performance.now() - t0) / 1000;
  if (keptDir) writeFileSync(metaFile, JSON.stringify({ uid, kb, n, files: fileCount, indexS }));
  }

  // The chunks as they are in the database (the count above is what was written or copied).
  n = Number((await db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM chunks WHERE knowledge_id = $1`, kb))[0]?.n ?? n);
  const ctx = { userId: uid, readableKnowledgeIds: new Set([kb]), signal: new AbortController().signal };
  if (chatRerankMode) {
    await chatRerankRun(kb, ctx, callTool);
    await closeDb();
    return;
  }
  const rctx = { ownerId: uid, sessionId: "bench", turnId: "bench", traceId: "bench", signal: ctx.signal, readableKnowledgeIds: ctx.readableKnowledgeIds };
  const runtime = getRetrievalRuntime();
  // Keywords an agent would grep for: the question's two longest tokens (often two CJK
  // characters, which the trigram index cannot narrow: the honest worst case) and its longest
  // run of CJK characters cut to 4.
  const keywordsOf = (q: string) => {
    const toks = [...new Set(tokenize(q))].filter((t) => t.length >= 2).sort((a, b) => b.length - a.length).slice(0, 2);
    const run4 = (q.match(/[\u4e00-\u9fff]{4,}/g) ?? []).sort((a, b) => b.length - a.length)[0]?.slice(0, 4);
    return [...new Set([...toks, ...(run4 ? [run4] : [])])].slice(0, 3);
  };
  const lat: Record<string, number[]> = { "retrieve()": [], list_knowledge_bases: [], knowledge_search: [], grep_chunks: [], get_document_info: [], list_knowledge_chunks: [] };
  const time = async (name: string, fn: () => Promise<unknown>, record: boolean) => {
    const s = performance.now();
    const r = (await fn()) as { status?: string; message?: string };
    if (r && r.status === "error") throw new Error(`${name}: ${r.message}`);
    if (record) lat[name]!.push(performance.now() - s);
    return r;
  };
  const warm = 20;
  const loadBefore = loadavg().map((x) => x.toFixed(2)).join(", ");
  for (const [i, q] of queries.entries()) {
    const record = i >= Math.min(warm, queries.length - 1);
    await time("retrieve()", () => runtime.retrieve({ query: q.text, topK: 8, knowledgeBaseIds: [kb] }, rctx, { minScore: 0 }), record);
    const s = (await time("knowledge_search", () => callTool("knowledge_search", { queries: [q.text], top_k: 8 }, ctx), record)) as { output: { hits: Array<{ file_id: string; chunk_index: number }> } };
    const kws = keywordsOf(q.text);
    if (kws.length) await time("grep_chunks", () => callTool("grep_chunks", { keywords: kws }, ctx), record);
    await time("list_knowledge_bases", () => callTool("list_knowledge_bases", {}, ctx), record);
    const top = s.output.hits[0];
    if (top) {
      await time("get_document_info", () => callTool("get_document_info", { file_ids: [top.file_id] }, ctx), record);
      await time("list_knowledge_chunks", () => callTool("list_knowledge_chunks", { file_id: top.file_id, offset: Math.max(0, top.chunk_index - 2), limit: 5 }, ctx), record);
    }
  }
  const sample = keywordsOf(queries[0]!.text).find((k) => k.length >= 3) ?? "的";
  // The plan (with actual times) of the statement grep_chunks sends, for a ≥3-character keyword
  // (trigram index) and a common two-character one (postings).
  const { grepStatement } = await import("@/lib/tools/grep-chunks");
  const stmt = grepStatement([sample, "合作"], [kb], undefined);
  const plan = await db.$queryRawUnsafe<Array<{ "QUERY PLAN": string }>>(`EXPLAIN (ANALYZE, COSTS OFF) ${stmt.sql}`, ...stmt.params);
  const other = await otherOwnersGrep(db, { kb, ctx, replaceFileChunks, tokenize, callTool, run });
  const kind = await getDbKind();
  const base = pct(lat["retrieve()"]!, 95);
  const rows = Object.entries(lat).map(([name, xs]) => `| ${name} | ${xs.length} | ${f1(pct(xs, 50))} ms | ${f1(pct(xs, 95))} ms | ${name === "retrieve()" ? "1.00" : (pct(xs, 95) / base).toFixed(2)} |`);
  const lines = [
    "",
    `## ${path.basename(path.resolve(datasetDir!))}${scale ? `, scaled to ${scale.toLocaleString("en")} chunks` : ""} (${kind}) — ${new Date().toISOString().slice(0, 16)}Z`,
    "",
    `${n.toLocaleString("en")} chunks in ${fileCount.toLocaleString("en")} files, indexed in ${f1(indexS)} s${copies > 1 ? ` (${Math.ceil(scale / copies).toLocaleString("en")} through the index writer, ${copies - 1} SQL copies with new ids)` : ""}${kept ? " (index reused from --data-dir)" : ""}; load average before/after ${loadBefore} / ${loadavg().map((x) => x.toFixed(2)).join(", ")}; ${queries.length} queries (first ${warm} are warm-up, not counted), each tool once per query through callTool; ${cpus().length} cores shared with other work. Command: \`npm run bench:tools -- ${argv.join(" ")}\`.`,
    "",
    "| tool | calls | p50 | p95 | p95 / retrieve() p95 |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...rows,
    "",
    `grep_chunks plan for one ≥3-character keyword ("${sample}", trigram index) and one two-character keyword ("合作", postings):`,
    "",
    "```",
    ...plan.map((p) => p["QUERY PLAN"]),
    "```",
    "",
    `Another owner's knowledge base of ${other.chunks} chunks (the dataset's first sentences) beside this one: grep_chunks for "${other.keyword}", which ${other.foreignMatches.toLocaleString("en")} chunks of the benchmark KB hold and ${other.ownMatches} of the small KB's (median / max of ${other.small.length} calls after one warm-up; the small KB's answer held only its own file):`,
    "",
    "| whose grep | p50 | max |",
    "| --- | ---: | ---: |",
    `| the small KB's owner | ${f1(pct(other.small, 50))} ms | ${f1(Math.max(...other.small))} ms |`,
    `| the benchmark KB's owner | ${f1(pct(other.big, 50))} ms | ${f1(Math.max(...other.big))} ms |`,
  ];
  console.log(lines.join("\n"));
  if (outFile !== "-") appendFileSync(outFile, `${lines.join("\n")}\n`);
  await runtime.close();
  await closeDb();
}

/**
 * One user's grep must not pay for another user's data (grep_chunks' index keyed by knowledge base,
 * migration 20261216000000): a second owner's knowledge base of 30 chunks is written beside the
 * benchmark's, and grep_chunks is timed on it for the keyword of its text that the most chunks of
 * the benchmark's knowledge base hold — the case where an index keyed by text alone rechecked all
 * of those chunks before dropping them.
 */
async function otherOwnersGrep(
  db: Awaited<ReturnType<typeof import("@/lib/db/client").getDb>>,
  t: {
    kb: string;
    ctx: { userId: string; readableKnowledgeIds: Set<string>; signal: AbortSignal };
    replaceFileChunks: typeof import("@/lib/retrieval/index-writer").replaceFileChunks;
    tokenize: (s: string) => string[];
    callTool: typeof import("@/lib/tools/registry").callTool;
    run: string;
  },
): Promise<{ chunks: number; keyword: string; foreignMatches: number; ownMatches: number; small: number[]; big: number[] }> {
  const uid = `bench-u2-${t.run}`;
  const kb = `bench-kb2-${t.run}`;
  const fileId = `${kb}-f0`;
  const texts = docs.slice(0, 30).map((d) => d.text);
  await db.user.create({ data: { id: uid, email: `${uid}@bench.local`, name: "other owner" } });
  await db.knowledge.create({ data: { id: kb, name: "other owner's", ownerId: uid } });
  await db.knowledgeMember.create({ data: { knowledgeId: kb, userId: uid, role: "owner" } });
  await db.knowledgeFile.create({
    data: { id: fileId, knowledgeId: kb, name: "notes.txt", fileType: "txt", mimeType: "text/plain", size: 1n, sha256: fileId, storageKey: fileId, status: "success", chunkCount: texts.length },
  });
  await t.replaceFileChunks(db, { knowledgeId: kb, fileId, chunks: texts.map((content, ordinal) => ({ ordinal, content, pageStart: null, pageEnd: null, headingPath: "" })) });
  // Keywords of three characters (what the trigram index answers): the words of three or more
  // letters and every three-character run of Han characters in the small KB's text, each counted
  // in the benchmark KB (at most 200 of them: a second or two of ILIKE at benchmark size).
  const words = texts.flatMap((x) => t.tokenize(x)).filter((w) => w.length >= 3 && /^[\p{L}\p{N}]+$/u.test(w));
  const han = texts.flatMap((x) => (x.match(/[\u4e00-\u9fff]{3,}/g) ?? []).flatMap((r) => [...r].slice(0, -2).map((_, i) => r.slice(i, i + 3))));
  const candidates = [...new Set([...words, ...han])].slice(0, 200);
  let keyword = "";
  let foreignMatches = -1;
  for (const w of candidates) {
    const [r] = await db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM chunks WHERE knowledge_id = $1 AND content ILIKE '%' || $2 || '%'`, t.kb, w);
    if ((r?.n ?? 0) > foreignMatches) [keyword, foreignMatches] = [w, r?.n ?? 0];
  }
  if (!keyword) throw new Error("no keyword of three or more letters in the small knowledge base");
  const ownMatches = texts.filter((x) => x.toLowerCase().includes(keyword.toLowerCase())).length;
  const ctx = { userId: uid, readableKnowledgeIds: new Set([kb]), signal: t.ctx.signal };
  const timed = async (c: typeof ctx) => {
    const s = performance.now();
    const r = (await t.callTool("grep_chunks", { keywords: [keyword] }, c)) as { status?: string; message?: string; output?: { documents: Array<{ knowledge_base_id: string }> } };
    if (r.status === "error") throw new Error(`grep_chunks: ${r.message}`);
    if (c === ctx && r.output?.documents.some((d) => d.knowledge_base_id !== kb)) throw new Error("grep_chunks answered another owner's chunks");
    return performance.now() - s;
  };
  await timed(ctx);
  await timed(t.ctx);
  const small: number[] = [];
  const big: number[] = [];
  for (let i = 0; i < 15; i++) {
    small.push(await timed(ctx));
    big.push(await timed(t.ctx));
  }
  return { chunks: texts.length, keyword, foreignMatches, ownMatches, small, big };
}

/**
 * knowledge_search with and without the chat-model rerank of agent mode, per query, the chat model
 * being the local test server (real HTTP, the app's prompt and parser). Checks what a rerank must
 * do — every call answers, says "chat_model", puts the best rerank score first and draws its hits
 * from the candidates the plain search ranks — and reports what it changes and costs: nDCG@10 and Recall@8
 * of both orders against the dataset's qrels (the test model's scores are bigram cosines, so the
 * figure says nothing of a real model), how often the top hit moves, and the added latency.
 */
async function chatRerankRun(
  kb: string,
  ctx: { userId: string; readableKnowledgeIds: Set<string>; signal: AbortSignal },
  callTool: (name: string, args: unknown, ctx: never) => Promise<unknown>,
): Promise<void> {
  const { startFakeOpenAI } = await import("../e2e/support/fake-openai-server");
  const { chatRerank } = await import("@/lib/models/chat-rerank");
  const model = await startFakeOpenAI();
  const chat = { baseUrl: model.baseUrl, apiKey: undefined, model: "test-model", temperature: 0, maxTokens: 256, timeoutMs: 30_000 };
  const rerank = (query: string, documents: string[], signal: AbortSignal) => chatRerank(chat, query, documents, signal);
  const qrels = new Map<string, Set<string>>();
  for (const line of readFileSync(path.join(datasetDir!, "qrels.tsv"), "utf8").split("\n").slice(1)) {
    const [q, d, score] = line.split("\t");
    if (!q || !d || Number(score) <= 0) continue;
    if (!qrels.has(q)) qrels.set(q, new Set());
    qrels.get(q)!.add(d);
  }
  type Out = { status: string; output: { hits: Array<{ chunk_id: string; file_id: string; chunk_index: number; score: number }>; rerank: string } };
  const ndcg = (ids: string[], rel: Set<string>) => {
    let dcg = 0;
    const seen = new Set<string>();
    ids.slice(0, 10).forEach((d, i) => {
      if (rel.has(d) && !seen.has(d)) dcg += 1 / Math.log2(i + 2);
      seen.add(d);
    });
    let ideal = 0;
    for (let i = 0; i < Math.min(10, rel.size); i++) ideal += 1 / Math.log2(i + 2);
    return ideal ? dcg / ideal : 0;
  };
  const recall = (ids: string[], rel: Set<string>) => [...rel].filter((d) => ids.includes(d)).length / rel.size;
  const asked = queries.filter((q) => qrels.has(q.id));
  const plainLat: number[] = [];
  const rerankLat: number[] = [];
  const status = new Map<string, number>();
  const failures: string[] = [];
  let topMoved = 0;
  let sums = { plainN: 0, rerankN: 0, plainR: 0, rerankR: 0 };
  for (const q of asked) {
    const args = { queries: [q.text], top_k: 8 };
    let t = performance.now();
    const plain = (await callTool("knowledge_search", args, ctx as never)) as Out;
    plainLat.push(performance.now() - t);
    // The pool a rerank chooses from: the plain search at the depth agent mode fetches.
    const pool = (await callTool("knowledge_search", { ...args, top_k: 16 }, ctx as never)) as Out;
    t = performance.now();
    const re = (await callTool("knowledge_search", args, { ...ctx, rerank } as never)) as Out;
    rerankLat.push(performance.now() - t);
    status.set(re.output?.rerank ?? re.status, (status.get(re.output?.rerank ?? re.status) ?? 0) + 1);
    if (plain.status !== "ok" || re.status !== "ok") {
      failures.push(`${q.id}: ${plain.status} / ${re.status}`);
      continue;
    }
    const scores = re.output.hits.map((h) => h.score);
    // The hits come in MMR order over the reranked scores, whose first pick is the best score.
    if (scores.length && scores[0]! < Math.max(...scores)) failures.push(`${q.id}: the first reranked hit is not the best scored`);
    const poolIds = new Set(pool.output.hits.map((h) => h.chunk_id));
    if (re.output.hits.some((h) => !poolIds.has(h.chunk_id))) failures.push(`${q.id}: a reranked hit outside the plain search's candidates`);
    if (plain.output.hits[0]?.chunk_id !== re.output.hits[0]?.chunk_id) topMoved++;
    const docs = (o: Out) => o.output.hits.map((h) => docOfChunk.get(`${h.file_id}/${h.chunk_index}`) ?? "?");
    const rel = qrels.get(q.id)!;
    sums = {
      plainN: sums.plainN + ndcg(docs(plain), rel),
      rerankN: sums.rerankN + ndcg(docs(re), rel),
      plainR: sums.plainR + recall(docs(plain), rel),
      rerankR: sums.rerankR + recall(docs(re), rel),
    };
  }
  const chatCalls = model.requests.filter((r) => r.endpoint === "chat").length;
  await model.close();
  const k = asked.length || 1;
  const lines = [
    "",
    `## ${path.basename(path.resolve(datasetDir!))}: knowledge_search with the chat-model rerank against without (test model) — ${new Date().toISOString().slice(0, 16)}Z`,
    "",
    `${asked.length} queries with qrels, top_k 8, each asked without and with the agent mode's chat-model rerank (candidates up to 16, the local OpenAI-compatible test server over HTTP, ${chatCalls} chat requests); load average ${loadavg().map((x) => x.toFixed(2)).join(", ")}. The test model scores a passage by the bigram cosine to the query: **the quality columns check the plumbing, they are no claim about a real model.** Command: \`npm run bench:tools -- ${argv.join(" ")}\`.`,
    "",
    "| | nDCG@10 | Recall@8 | p50 | p95 |",
    "| --- | ---: | ---: | ---: | ---: |",
    `| no rerank | ${(sums.plainN / k).toFixed(3)} | ${(sums.plainR / k).toFixed(3)} | ${f1(pct(plainLat, 50))} ms | ${f1(pct(plainLat, 95))} ms |`,
    `| chat-model rerank (test model) | ${(sums.rerankN / k).toFixed(3)} | ${(sums.rerankR / k).toFixed(3)} | ${f1(pct(rerankLat, 50))} ms | ${f1(pct(rerankLat, 95))} ms |`,
    "",
    `rerank field: ${[...status].map(([s, c]) => `${s} ${c}`).join(", ")}; top hit changed on ${topMoved} of ${asked.length}; checks failed: ${failures.length ? failures.slice(0, 10).join("; ") : "none"} (every call answered, the first reranked hit is the best scored, every reranked hit is among the plain search's 16 candidates).`,
  ];
  console.log(lines.join("\n"));
  if (outFile !== "-") appendFileSync(outFile, `${lines.join("\n")}\n`);
  if (failures.length) process.exitCode = 1;
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => {
    if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
  });
