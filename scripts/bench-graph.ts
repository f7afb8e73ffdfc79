// Knowledge-graph benchmark (issue 19); figures and reasoning in docs/bench-graph.md.
//
//   node --conditions=react-server --import tsx scripts/bench-graph.ts [--ner-only | --cost-only] [--explain] [--files 12] [--contexts 400]
//
// 1. Entity extraction on the labelled CLUENER2020 dev sentences (shared/bench/NER-README.md):
//    the plain jieba part-of-speech baseline and the offline extractor in the same run, exact and
//    lenient P/R/F1 per coarse type and micro, each rule turned off once, and the candidates
//    rule applied over the whole set as one "file".
// 2. Cost on the cmrc2018 corpus as text files, through the real job runner on a fresh embedded
//    PGlite (or BENCH_DATABASE_URL): ingestion with the graph off, the same files with it on, and
//    the graph stage alone (a rebuild); storage of the graph against the chunks'; and
//    query_knowledge_graph latency (p50/p95) on that KB.
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_RULES, extractEntities, extractJiebaBaseline, type EntitySpan, type ExtractRules } from "@/lib/graph/extract-offline";
import { COARSE_TYPES, scoreNer, toCoarse, type NerScore } from "@/lib/graph/ner-score";
import { normalizeName } from "@/lib/graph/normalize";
import { MIN_CANDIDATE_OCCURRENCES } from "@/lib/graph/build";

const BENCH_DATA = process.env.BENCH_DATA_DIR ?? "/work/shared/bench";
const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};

interface NerRow {
  id: string;
  text: string;
  entities: { start: number; end: number; type: string; fine_type: string }[];
}

const f3 = (x: number) => x.toFixed(3);

function score(rows: NerRow[], predict: (text: string) => EntitySpan[], candidatesOverSet = false): NerScore {
  const preds = rows.map((r) => predict(r.text));
  const counts = new Map<string, number>();
  for (const p of preds) for (const e of p) counts.set(normalizeName(e.text), (counts.get(normalizeName(e.text)) ?? 0) + 1);
  // Candidates (weak spans) need repetition within a file; a sentence has none, so they count
  // only in the "whole set as one file" row.
  const keep = (e: EntitySpan) => !e.weak || (candidatesOverSet && (counts.get(normalizeName(e.text)) ?? 0) >= MIN_CANDIDATE_OCCURRENCES);
  return scoreNer(rows.map((r, i) => ({ gold: r.entities, predicted: preds[i]!.filter(keep).map((e) => ({ start: e.start, end: e.end, type: toCoarse(e.type) })) })));
}

function ner(): string {
  const file = path.join(BENCH_DATA, "ner-cluener-dev", "dev.jsonl");
  if (!existsSync(file)) return `NER set not found at ${file}\n`;
  const rows = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as NerRow);
  const t0 = performance.now();
  const baseline = score(rows, extractJiebaBaseline);
  const tBase = performance.now() - t0;
  const t1 = performance.now();
  const offline = score(rows, (t) => extractEntities(t));
  const tOff = performance.now() - t1;
  const lines: string[] = [];
  const chars = rows.reduce((n, r) => n + r.text.length, 0);
  lines.push(`Sentences: ${rows.length}, gold entities: ${rows.reduce((n, r) => n + r.entities.length, 0)}, ${chars} characters.`, "");
  lines.push("| extractor | micro lenient P / R / F1 | micro exact P / R / F1 | time |", "| --- | --- | --- | ---: |");
  const row = (name: string, s: NerScore, ms?: number) =>
    `| ${name} | ${f3(s.lenient.micro.p)} / ${f3(s.lenient.micro.r)} / **${f3(s.lenient.micro.f1)}** | ${f3(s.exact.micro.p)} / ${f3(s.exact.micro.r)} / ${f3(s.exact.micro.f1)} | ${ms === undefined ? "" : `${Math.round(ms)} ms`} |`;
  lines.push(row("jieba POS baseline (nr* PER, ns LOC, nt ORG, nz MISC)", baseline, tBase));
  lines.push(row("offline extractor (ingestion's rules)", offline, tOff));
  lines.push(row(`offline extractor + candidates over the whole set (≥ ${MIN_CANDIDATE_OCCURRENCES} occurrences)`, score(rows, (t) => extractEntities(t), true)));
  for (const k of Object.keys(DEFAULT_RULES) as (keyof ExtractRules)[]) {
    lines.push(row(`offline extractor without \`${k}\``, score(rows, (t) => extractEntities(t, { ...DEFAULT_RULES, [k]: false }))));
  }
  lines.push("", `Ratio offline / baseline, micro lenient F1: **${(offline.lenient.micro.f1 / baseline.lenient.micro.f1).toFixed(2)}×** (target ≥ 2×).`, "");
  lines.push("Per coarse type (lenient F1 / exact F1):", "", "| type | baseline | offline |", "| --- | --- | --- |");
  for (const t of COARSE_TYPES) lines.push(`| ${t} | ${f3(baseline.lenient[t].f1)} / ${f3(baseline.exact[t].f1)} | ${f3(offline.lenient[t].f1)} / ${f3(offline.exact[t].f1)} |`);
  // Recall per fine type (what the rules reach and what they do not).
  const fine = new Map<string, { gold: number; found: number }>();
  for (const r of rows) {
    const preds = extractEntities(r.text).filter((e) => !e.weak);
    for (const g of r.entities) {
      const f = fine.get(g.fine_type) ?? { gold: 0, found: 0 };
      f.gold++;
      if (preds.some((p) => toCoarse(p.type) === g.type && p.start < g.end && g.start < p.end)) f.found++;
      fine.set(g.fine_type, f);
    }
  }
  lines.push("", "Offline extractor, lenient recall per CLUENER fine type:", "", "| fine type | gold | found | recall |", "| --- | ---: | ---: | ---: |");
  for (const [k, v] of [...fine.entries()].sort((a, b) => b[1].gold - a[1].gold)) lines.push(`| ${k} | ${v.gold} | ${v.found} | ${f3(v.found / v.gold)} |`);
  return lines.join("\n") + "\n";
}

function cmrcFiles(count: number): { name: string; text: string }[] {
  const file = path.join(BENCH_DATA, "cmrc2018-sent", "corpus.jsonl");
  const rows = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { id: string; title: string; text: string });
  const byCtx = new Map<string, { title: string; parts: string[] }>();
  for (const r of rows) {
    const key = r.id.split("-s")[0]!;
    const e = byCtx.get(key) ?? { title: r.title, parts: [] };
    e.parts.push(r.text);
    byCtx.set(key, e);
  }
  const contexts = [...byCtx.values()].slice(0, opt("--contexts", 400));
  const per = Math.ceil(contexts.length / count);
  return Array.from({ length: count }, (_, i) => ({
    name: `cmrc-${String(i).padStart(2, "0")}.txt`,
    text: contexts
      .slice(i * per, (i + 1) * per)
      .map((c) => `${c.title}\n\n${c.parts.join("")}`)
      .join("\n\n"),
  })).filter((f) => f.text);
}

/** EXPLAIN ANALYZE of the statements one tool call runs, for the docs (--explain). */
async function explainQueries(db: import("@/lib/generated/prisma/client").PrismaClient, kb: string, name: string, phrase: string): Promise<string> {
  const { explainGraphQuery } = await import("@/lib/graph/query");
  const out: string[] = ["", "EXPLAIN ANALYZE (a top entity's name, then a question's phrase):", ""];
  for (const q of [name, phrase]) {
    out.push("```", `-- query: ${q}`);
    for (const plan of await explainGraphQuery(db, { knowledgeIds: [kb], query: q })) out.push(plan, "");
    out.push("```");
  }
  return out.join("\n");
}

/**
 * The graph stage's parts timed apart over a KB ingested without the graph: extraction (jieba
 * tagging and the rules, chunk by chunk), pruning (GraphBuilder.finish) and the database writes
 * (writeFileGraph), each file once, as the stage runs them; the writes also statement by
 * statement (wall time of each call through the transaction, by the statement's first words).
 */
async function profileStage(db: import("@/lib/generated/prisma/client").PrismaClient, kb: string): Promise<{ part: string; ms: number; cpu: number; calls?: number }[]> {
  const { GraphBuilder } = await import("@/lib/graph/build");
  const { writeFileGraph } = await import("@/lib/graph/store");
  const parts = { "extraction (tagging + rules)": { ms: 0, cpu: 0 }, "pruning (finish)": { ms: 0, cpu: 0 }, "writes (writeFileGraph)": { ms: 0, cpu: 0 } };
  const statements = new Map<string, { ms: number; calls: number }>();
  const timed = async <T>(part: keyof typeof parts, f: () => T | Promise<T>): Promise<T> => {
    const t = performance.now();
    const c = process.cpuUsage();
    const r = await f();
    const cu = process.cpuUsage(c);
    parts[part].ms += performance.now() - t;
    parts[part].cpu += (cu.user + cu.system) / 1000;
    return r;
  };
  type Raw = (sql: string, ...values: unknown[]) => Promise<unknown>;
  const timeStatements = <T extends object>(tx: T): T =>
    new Proxy(tx, {
      get(target, prop) {
        const v = Reflect.get(target, prop) as unknown;
        if ((prop === "$queryRawUnsafe" || prop === "$executeRawUnsafe") && typeof v === "function") {
          return async (sql: string, ...values: unknown[]) => {
            const key = sql.replace(/\s+/g, " ").trim().split(" ").slice(0, 4).join(" ");
            const t = performance.now();
            const r = await (v as Raw).call(target, sql, ...values);
            const e = statements.get(key) ?? { ms: 0, calls: 0 };
            e.ms += performance.now() - t;
            e.calls++;
            statements.set(key, e);
            return r;
          };
        }
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  const profiled = new Proxy(db, {
    get(target, prop) {
      if (prop === "$transaction") return (fn: (tx: unknown) => Promise<unknown>, o?: unknown) => target.$transaction((tx) => fn(timeStatements(tx)), o as never);
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  for (const f of await db.knowledgeFile.findMany({ where: { knowledgeId: kb }, select: { id: true } })) {
    const chunks = await db.chunk.findMany({ where: { fileId: f.id }, orderBy: { ordinal: "asc" }, select: { id: true, content: true } });
    const builder = new GraphBuilder();
    await timed("extraction (tagging + rules)", () => { for (const c of chunks) builder.addChunk(c); });
    const graph = await timed("pruning (finish)", () => builder.finish());
    await timed("writes (writeFileGraph)", () => writeFileGraph(profiled, { knowledgeId: kb, fileId: f.id, graph }));
  }
  return [
    ...Object.entries(parts).map(([part, v]) => ({ part, ...v })),
    ...[...statements].map(([sql, v]) => ({ part: `… \`${sql} …\``, ms: v.ms, cpu: Number.NaN, calls: v.calls })),
  ];
}

const median = (xs: number[]) => pct(xs, 50);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function cost(fileCount: number): Promise<string> {
  const { openDatabase } = await import("@/lib/db/client");
  const { runPendingJobs } = await import("@/lib/ingestion/runner");
  const { storeBuffer } = await import("@/lib/ingestion/storage");
  const { recordFile } = await import("@/lib/ingestion/upload");
  const { updateGraphSettings, waitForRebuild } = await import("@/lib/graph/settings");
  const { queryKnowledgeGraph } = await import("@/lib/graph/query");
  const { loadTokenizer } = await import("@/lib/retrieval/text/tokenize");
  loadTokenizer();

  const dataDir = mkdtempSync(path.join(tmpdir(), "ka-bench-graph-"));
  const handle = await openDatabase({ databaseUrl: process.env.BENCH_DATABASE_URL, dataDir });
  const db = handle.prisma;
  const userId = `bench-${randomUUID()}`;
  await db.user.create({ data: { id: userId, email: `${userId}@bench.test`, name: "bench" } });
  const files = cmrcFiles(fileCount);
  const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.text), 0);

  const ingest = async (graphEnabled: boolean, only?: number) => {
    const kb = randomUUID();
    await db.knowledge.create({ data: { id: kb, name: `bench ${graphEnabled}`, ownerId: userId, graphEnabled } });
    for (const f of only === undefined ? files : files.slice(0, only)) {
      const data = Buffer.from(f.text);
      const fileId = randomUUID();
      const storageKey = await storeBuffer(kb, fileId, data, dataDir);
      await recordFile(db, {
        fileId, knowledgeId: kb, userId, name: f.name, fileType: "txt", mimeType: "text/plain", size: data.length,
        sha256: createHash("sha256").update(data).update(kb).digest("hex"), storageKey, maxKbBytes: Number.MAX_SAFE_INTEGER,
      });
    }
    const t = performance.now();
    const c = process.cpuUsage();
    await runPendingJobs({ db, dataDir, exclusive: !process.env.BENCH_DATABASE_URL, pollMs: 20 });
    const cu = process.cpuUsage(c);
    return { kb, ms: performance.now() - t, cpu: (cu.user + cu.system) / 1000 };
  };

  // A first, untimed file pays jieba's dictionary, the parse thread's start and the JIT (it made
  // the first timed KB the slowest whatever its setting); then three pairs off/on, the middle one
  // in the other order (off on, on off, off on), so that a drift along the run (the first KBs
  // were the slowest in session 12's runs whatever their setting) and a load change on the
  // shared machine hit both settings alike. CPU time is this process's (the runner, its parse
  // threads and, on PGlite, the database), which the other engineers' load inflates far less
  // than wall time.
  await ingest(true, 1);
  const pairs: { off: Awaited<ReturnType<typeof ingest>>; on: Awaited<ReturnType<typeof ingest>> }[] = [];
  for (let i = 0; i < 3; i++) {
    const first = await ingest(i !== 1 ? false : true);
    const second = await ingest(i !== 1 ? true : false);
    const [off, on] = i !== 1 ? [first, second] : [second, first];
    console.error(`[bench] pair ${i + 1}: off ${Math.round(off.ms)} ms (cpu ${Math.round(off.cpu)}), on ${Math.round(on.ms)} ms (cpu ${Math.round(on.cpu)}); load ${loadavg().map((x) => x.toFixed(1)).join(" ")}`);
    pairs.push({ off, on });
  }
  const off = pairs[0]!.off;
  const on = pairs[1]!.on;
  const profile = await profileStage(db, pairs[1]!.off.kb);
  // The graph stage alone, over a KB ingested without it.
  const t = performance.now();
  const c0 = process.cpuUsage();
  await updateGraphSettings(db, off.kb, { enabled: true });
  await waitForRebuild(off.kb);
  const stageMs = performance.now() - t;
  const stageCpu = ((x) => (x.user + x.system) / 1000)(process.cpuUsage(c0));

  // Storage of one KB alone: every other KB deleted and the tables rewritten (VACUUM FULL), so
  // tables and indexes hold this KB's rows only, without dead space.
  const { deleteKnowledge } = await import("@/lib/db/knowledges");
  for (const k of await db.knowledge.findMany({ where: { id: { not: on.kb } }, select: { id: true } })) await deleteKnowledge(db, k.id);
  // Main before session 12 kept relation supports in a table of their own; since migration
  // 20261207010000 the mention rows hold them (the bench measures both layouts, main against a branch).
  const oldLayout = (await db.$queryRawUnsafe<{ old_layout: boolean }[]>(`SELECT to_regclass('graph_relation_supports') IS NOT NULL AS old_layout`))[0]?.old_layout === true;
  const tables = ["chunks", "posting_pages", "graph_entities", "graph_mentions", "graph_relations", ...(oldLayout ? ["graph_relation_supports"] : [])];
  await db.$executeRawUnsafe(`VACUUM FULL ${tables.join(", ")}`);
  const chunks = await db.chunk.count({ where: { knowledgeId: on.kb } });
  const [rowBytes] = await db.$queryRawUnsafe<Record<string, bigint | number>[]>(
    `SELECT (SELECT coalesce(sum(pg_column_size(c.*)), 0) FROM chunks c WHERE c.knowledge_id = $1) AS chunks,
            (SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM posting_pages t WHERE t.knowledge_id = $1) AS terms,
            (SELECT coalesce(sum(pg_column_size(e.*)), 0) FROM graph_entities e WHERE e.knowledge_id = $1) AS entities,
            (SELECT coalesce(sum(pg_column_size(m.*)), 0) FROM graph_mentions m JOIN chunks c ON c.id = m.chunk_id WHERE c.knowledge_id = $1) AS mentions,
            (SELECT coalesce(sum(pg_column_size(r.*)), 0) FROM graph_relations r WHERE r.knowledge_id = $1) AS relations,
            ${oldLayout ? `(SELECT coalesce(sum(pg_column_size(s.*)), 0) FROM graph_relation_supports s JOIN chunks c ON c.id = s.chunk_id WHERE c.knowledge_id = $1)` : "0"} AS supports`,
    on.kb,
  );
  const sizes = await db.$queryRawUnsafe<{ tbl: string; name: string; bytes: bigint | number; is_index: boolean }[]>(
    `SELECT t.relname AS tbl, t.relname AS name, pg_table_size(t.oid) AS bytes, false AS is_index FROM pg_class t WHERE t.relname = ANY($1::text[]) AND t.relkind = 'r'
     UNION ALL
     SELECT t.relname, i.relname, pg_relation_size(i.oid), true FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid WHERE t.relname = ANY($1::text[])
     ORDER BY 1, 4, 2`,
    tables,
  );
  const n = (v: bigint | number | undefined) => Number(v ?? 0);
  const graphRows = n(rowBytes!.entities) + n(rowBytes!.mentions) + n(rowBytes!.relations) + n(rowBytes!.supports);
  const chunkRows = n(rowBytes!.chunks) + n(rowBytes!.terms);
  const total = (pred: (t: string) => boolean) => sizes.filter((x) => pred(x.tbl)).reduce((a, x) => a + n(x.bytes), 0);
  const graphTotal = total((t) => t.startsWith("graph_"));
  const chunkTotal = total((t) => !t.startsWith("graph_"));
  const counts = await db.$queryRawUnsafe<{ e: bigint; r: bigint; m: bigint; s: bigint }[]>(
    `SELECT (SELECT count(*) FROM graph_entities WHERE knowledge_id = $1) AS e, (SELECT count(*) FROM graph_relations WHERE knowledge_id = $1) AS r,
            (SELECT count(*) FROM graph_mentions) AS m,
            ${oldLayout ? `(SELECT count(*) FROM graph_relation_supports)` : `(SELECT coalesce(sum(cardinality(relation_ids)), 0) FROM graph_mentions)`} AS s`,
    on.kb,
  );

  // Query latency: names of the most mentioned entities, random ones, and question phrases.
  const top = await db.graphEntity.findMany({ where: { knowledgeId: on.kb }, orderBy: { mentionCount: "desc" }, take: 100, select: { name: true } });
  const random = await db.$queryRawUnsafe<{ name: string }[]>(`SELECT name FROM graph_entities WHERE knowledge_id = $1 ORDER BY md5(norm_name) LIMIT 100`, on.kb);
  const questions = readFileSync(path.join(BENCH_DATA, "cmrc2018-sent", "queries.jsonl"), "utf8").trim().split("\n").slice(0, 50).map((l) => (JSON.parse(l) as { text: string }).text.slice(0, 30));
  const queries = [...top.map((e) => e.name), ...random.map((e) => e.name), ...questions];
  // The tool runs its statements through the raw handle (lib/tools/query-knowledge-graph.ts:
  // getRawDb), not Prisma: that is what is timed, each call's statements in the order it runs
  // them (search, relations, depth 2's relations, passages), so the tail can be put on one. The
  // same calls through Prisma (what this bench timed until session 11) are timed as well.
  let perCall: { key: string; ms: number }[] = [];
  const timedDb = {
    $queryRawUnsafe: async <T,>(sql: string, ...values: unknown[]): Promise<T> => {
      const t = performance.now();
      const r = await handle.raw.$queryRawUnsafe<T>(sql, ...values);
      perCall.push({ key: sql.replace(/\s+/g, " ").trim().slice(0, 48), ms: performance.now() - t });
      return r;
    },
  };
  const run = async (depth: 1 | 2, through: "raw" | "prisma") => {
    const target = through === "raw" ? timedDb : db;
    for (const q of queries.slice(0, 20)) await queryKnowledgeGraph(target, { knowledgeIds: [on.kb], query: q, depth, maxEntities: 3, maxRelations: 8, passagesPerRelation: 2 }); // warm
    const ms: number[] = [];
    const byStatement = new Map<string, number[]>();
    let hits = 0;
    for (const q of queries) {
      perCall = [];
      const s = performance.now();
      const r = await queryKnowledgeGraph(target, { knowledgeIds: [on.kb], query: q, depth, maxEntities: 3, maxRelations: 8, passagesPerRelation: 2 });
      ms.push(performance.now() - s);
      perCall.forEach((x, i) => {
        const key = `${i + 1}. ${x.key}`;
        byStatement.set(key, [...(byStatement.get(key) ?? []), x.ms]);
      });
      if (r.entities.length) hits++;
    }
    const statements = [...byStatement].map(([key, xs]) => ({ key, calls: xs.length, mean: xs.reduce((a, b) => a + b, 0) / xs.length, p95: pct(xs, 95) }));
    return { p50: pct(ms, 50), p95: pct(ms, 95), max: Math.max(...ms), hits, statements };
  };
  const loadBefore = loadavg();
  const d1 = await run(1, "raw");
  const d2 = await run(2, "raw");
  const p1 = await run(1, "prisma");
  const p2 = await run(2, "prisma");
  const loadAfter = loadavg();
  const explain = args.includes("--explain") ? await explainQueries(db, on.kb, top[0]?.name ?? "", questions[0] ?? "") : "";
  await handle.close();
  rmSync(dataDir, { recursive: true, force: true });

  const mb = (b: number) => `${(b / 1048576).toFixed(2)} MB`;
  const pctOf = (x: number, y: number) => `${(((x - y) / y) * 100).toFixed(0)} %`; // (pair 2 of three is the order on → off)
  const lines = [
    `Corpus: ${files.length} text files, ${mb(bytes)} (cmrc2018 contexts), ${chunks} chunks; database ${process.env.BENCH_DATABASE_URL ? "PostgreSQL server" : "embedded PGlite"}; ${cpus().length} cores.`,
    "",
    "| measurement | value |",
    "| --- | ---: |",
    ...pairs.map((p, i) => `| pair ${i + 1}: ingestion graph off → on, wall | ${Math.round(p.off.ms)} → ${Math.round(p.on.ms)} ms (+${pctOf(p.on.ms, p.off.ms)}) |`),
    ...pairs.map((p, i) => `| pair ${i + 1}: ingestion graph off → on, CPU of the process | ${Math.round(p.off.cpu)} → ${Math.round(p.on.cpu)} ms (+${pctOf(p.on.cpu, p.off.cpu)}) |`),
    `| all pairs, wall: median of the pairs / pooled (sum on / sum off) | **+${pctOf(median(pairs.map((p) => p.on.ms / p.off.ms)), 1)}** / +${pctOf(pairs.reduce((a, p) => a + p.on.ms, 0), pairs.reduce((a, p) => a + p.off.ms, 0))} |`,
    `| all pairs, CPU: median of the pairs / pooled | **+${pctOf(median(pairs.map((p) => p.on.cpu / p.off.cpu)), 1)}** / +${pctOf(pairs.reduce((a, p) => a + p.on.cpu, 0), pairs.reduce((a, p) => a + p.off.cpu, 0))} |`,
    `| graph stage alone (rebuild of the pair-1 KB ingested without it), wall / CPU | ${Math.round(stageMs)} / ${Math.round(stageCpu)} ms = ${((stageCpu / off.cpu) * 100).toFixed(0)} % of that KB's ingestion CPU |`,
    `| entities / relations / mention rows / supports (rows, or entries held by mention rows) | ${n(counts[0]!.e)} / ${n(counts[0]!.r)} / ${n(counts[0]!.m)} / ${n(counts[0]!.s)} |`,
    `| row bytes: chunks + postings of the KB | ${mb(chunkRows)} |`,
    `| row bytes: graph of the KB (entities, mentions, relations, supports) | ${mb(graphRows)} = **${((graphRows / chunkRows) * 100).toFixed(0)} %** |`,
    `| tables with indexes (one KB, after VACUUM FULL): chunks + posting_pages | ${mb(chunkTotal)} |`,
    `| tables with indexes (one KB, after VACUUM FULL): graph | ${mb(graphTotal)} = **${((graphTotal / chunkTotal) * 100).toFixed(0)} %** |`,
    `| query_knowledge_graph depth 1, ${queries.length} queries (${d1.hits} with a match), raw handle as the tool: p50 / p95 / max | ${d1.p50.toFixed(1)} / **${d1.p95.toFixed(1)}** / ${d1.max.toFixed(1)} ms |`,
    `| query_knowledge_graph depth 2, raw handle as the tool: p50 / p95 / max | ${d2.p50.toFixed(1)} / **${d2.p95.toFixed(1)}** / ${d2.max.toFixed(1)} ms |`,
    `| the same through Prisma (as measured until session 11), depth 1 / depth 2: p50 / p95 / max | ${p1.p50.toFixed(1)} / ${p1.p95.toFixed(1)} / ${p1.max.toFixed(1)} ms; ${p2.p50.toFixed(1)} / ${p2.p95.toFixed(1)} / ${p2.max.toFixed(1)} ms |`,
    `| load average (1/5/15 min) before → after the queries | ${loadBefore.map((x) => x.toFixed(1)).join(" ")} → ${loadAfter.map((x) => x.toFixed(1)).join(" ")} |`,
    "",
    "query_knowledge_graph statement by statement through the raw handle (in the order a call runs them; wall time per call):",
    "",
    "| depth | statement | calls | mean | p95 |",
    "| --- | --- | ---: | ---: | ---: |",
    ...([[1, d1], [2, d2]] as const).flatMap(([d, r]) => r.statements.map((x) => `| ${d} | \`${x.key}…\` | ${x.calls} | ${x.mean.toFixed(1)} ms | ${x.p95.toFixed(1)} ms |`)),
    "",
    "Graph stage profiled (the pair-2 KB ingested without the graph, every file once; wall / CPU of the process):",
    "",
    "| part | wall | CPU |",
    "| --- | ---: | ---: |",
    ...profile.map((x) => `| ${x.part}${x.calls ? ` (${x.calls}×)` : ""} | ${Math.round(x.ms)} ms | ${Number.isNaN(x.cpu) ? "" : `${Math.round(x.cpu)} ms`} |`),
    "",
    "Storage per table and index (bytes):",
    "",
    "| table | relation | bytes |",
    "| --- | --- | ---: |",
    ...sizes.map((x) => `| ${x.tbl} | ${x.is_index ? x.name : "(table, TOAST)"} | ${n(x.bytes)} |`),
    explain,
  ];
  return lines.join("\n") + "\n";
}

async function main() {
  if (!args.includes("--cost-only")) {
    console.log("## Entity extraction (CLUENER2020 dev)\n");
    console.log(ner());
  }
  if (args.includes("--ner-only")) return;
  console.log("## Cost, storage and query latency (cmrc2018 KB)\n");
  console.log(await cost(opt("--files", 12)));
}

await main();
process.exit(0);
