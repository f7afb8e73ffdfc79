// Answer-quality benchmark of the built-in extractive engine (a figure, not a test). Indexes the
// sample KB (prisma/sample, through the real parsers, chunker and index writer) and the shared
// benchmark sets, asks each question through the same retrieve() + selectContext() the chat
// turn uses, and scores the sentences the engine keeps:
//
//   first  — share of answers whose first sentence holds the gold answer (sample KB: a span of
//            the answer; CMRC: the gold sentence; SciFact: a sentence of the gold abstract)
//   any    — share of answers where some kept sentence holds the gold answer
//   offtop — share of kept sentences that share no content word (tokenizer terms) with the question
//   weak   — share of kept sentences that hold fewer than half of the question's content words
//   sent/a — average sentences per answer
//   cited  — share of cited references out of the references the API sends
//
//   npm run bench:answers                       # sample KB + 300 CMRC + 200 SciFact questions
//   npm run bench:answers -- --limit 100 --out -  # smaller, print only
//
// Run with the react-server condition so "server-only" resolves to its empty module.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { composeExtractiveAnswer, selectSentences } from "@/lib/assistant/engines/extractive";
import { composeOverview, isOverviewQuestion } from "@/lib/assistant/engines/overview";
import { hasCjk } from "@/lib/assistant/references";
import { en as EN, zh as ZH } from "@/components/i18n/dictionary";
import { kbOverview } from "@/lib/retrieval/kb-overview";
import { selectContext } from "@/lib/assistant/prompt";
import { chunkDocument } from "@/lib/ingestion/chunker";
import { parseDocx } from "@/lib/ingestion/parsers/docx";
import { parseMarkdown } from "@/lib/ingestion/parsers/markdown";
import { parsePdf } from "@/lib/ingestion/parsers/pdf";
import { makeBudget, type ParsedDocument } from "@/lib/ingestion/types";
import { openDatabase } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { retrieve } from "@/lib/retrieval/core";
import { replaceFileChunks } from "@/lib/retrieval/index-writer";
import { tokenize } from "@/lib/retrieval/text/tokenize";
import type { ChunkInput, RetrievalContext } from "@/lib/retrieval/types";

const argv = process.argv.slice(2);
const arg = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const limit = Number(arg("limit") ?? 300);
const outFile = arg("out") ?? null;
const label = arg("label") ?? "run";
const benchDir = arg("bench-dir") ?? path.resolve(process.cwd(), "../../shared/bench");
const MIN_SCORE = 0.5;
const TOP_K = 8;
const BUDGET = { maxChunks: 3, charsPerChunk: 650, totalChars: 1950 };

// ---------- the fixed question set of the sample KB (gold: a span the first sentence must hold) ----------
const SAMPLE_QUESTIONS: Array<{ q: string; gold: string[] }> = [
  { q: "私有化部署的最低硬件配置是什么？", gold: ["4 核 CPU"] },
  { q: "购买后多少天内可以申请全额退款？", gold: ["30 天内"] },
  { q: "2025 年国内协同办公市场规模是多少？", gold: ["386 亿元"] },
  { q: "2025 年第二季度的收入是多少？", gold: ["2.61 亿元"] },
  { q: "忘记登录密码怎么办？", gold: ["忘记密码"] },
  { q: "上传文件的大小有限制吗？", gold: ["50 MB"] },
  { q: "企业版客户严重故障的响应时间是多少？", gold: ["30 分钟"] },
  { q: "消息默认保存多久？", gold: ["三年"] },
  { q: "文档的历史版本可以回溯多久？", gold: ["180 天"] },
  { q: "备份默认保留多少天？", gold: ["14 天"] },
  { q: "离线安装包有多大？", gold: ["6 GB"] },
  { q: "第二季度的客户满意度是多少？", gold: ["4.6 分"] },
  { q: "私有化部署的维护费是多少？", gold: ["18%"] },
  { q: "安装过程需要多长时间？", gold: ["10 到 15 分钟"] },
  { q: "How long is an invitation link valid?", gold: ["valid for 7 days"] },
  { q: "How long are audit logs kept?", gold: ["180 days in the standard plan"] },
  { q: "How many failed attempts lock an account?", gold: ["5 failed attempts"] },
  { q: "How long are daily backups kept?", gold: ["14 days"] },
  { q: "When are members signed out for inactivity?", gold: ["12 hours"] },
  { q: "Which single sign-on protocols are supported?", gold: ["SAML 2.0"] },
  { q: "How many rows does a bulk invitation file accept?", gold: ["2,000"] },
  { q: "When are unused API tokens revoked?", gold: ["90 days"] },
];

interface Case {
  id: string;
  q: string;
  /** True when a sentence holds the answer. */
  isGold: (sentence: string, fileName: string) => boolean;
}

const norm = (s: string) => s.replace(/\s+/g, "").replace(/[*`]/g, "");

// ---------- DB ----------
const tmp = mkdtempSync(path.join(tmpdir(), "ka-bench-answers-"));
const handle = await openDatabase({ dataDir: tmp });
const db: PrismaClient = handle.prisma;
const run = Date.now().toString(36);
const uid = `bench-u-${run}`;
await db.user.create({ data: { id: uid, email: `${uid}@bench.local`, name: "bench" } });
let kbSeq = 0;
async function createKb(name: string): Promise<string> {
  const id = `bench-kb-${run}-${++kbSeq}`;
  await db.knowledge.create({ data: { id, name, ownerId: uid } });
  return id;
}
let fileSeq = 0;
async function indexFile(kb: string, name: string, chunks: ChunkInput[]): Promise<string> {
  const id = `bench-f-${run}-${++fileSeq}`;
  await db.knowledgeFile.create({
    data: { id, knowledgeId: kb, name, fileType: "txt", mimeType: "text/plain", size: BigInt(1), sha256: id, storageKey: id, status: "success" },
  });
  await replaceFileChunks(db, { knowledgeId: kb, fileId: id, chunks });
  return id;
}
function ctxFor(kb: string): RetrievalContext {
  return { ownerId: "bench", sessionId: "bench", turnId: "bench", traceId: "bench", signal: new AbortController().signal, readableKnowledgeIds: new Set([kb]) };
}

// ---------- scoring ----------
interface Row {
  set: string;
  answers: number;
  noContext: number;
  first: number;
  any: number;
  offTopic: number;
  weak: number;
  sentences: number;
  cited: number;
  sent: number;
  ms: number;
}

async function evaluate(set: string, kb: string, cases: Case[], show = 0): Promise<Row> {
  const row: Row = { set, answers: 0, noContext: 0, first: 0, any: 0, offTopic: 0, weak: 0, sentences: 0, cited: 0, sent: 0, ms: 0 };
  const ctx = ctxFor(kb);
  let shown = 0;
  for (const c of cases) {
    const res = await retrieve({ query: c.q, topK: TOP_K, knowledgeBaseIds: [kb] }, ctx, { db, minScore: MIN_SCORE });
    if (res.hits.length === 0) {
      row.noContext++;
      continue;
    }
    const context = selectContext(res.hits, BUDGET);
    const t0 = performance.now();
    const kept = selectSentences(c.q, context);
    row.ms += performance.now() - t0;
    row.answers++;
    const q = new Set(tokenize(c.q));
    const first = kept[0];
    if (first && c.isGold(first.text, context.find((b) => b.index === first.index)?.hit.fileName ?? "")) row.first++;
    const fileOf = (index: number) => context.find((b) => b.index === index)?.hit.fileName ?? "";
    if (kept.some((s) => c.isGold(s.text, fileOf(s.index)))) row.any++;
    const shared = kept.map((s) => new Set(tokenize(s.text).filter((t) => q.has(t))).size);
    row.offTopic += shared.filter((n) => n === 0).length;
    row.weak += shared.filter((n) => n < q.size / 2).length;
    row.sentences += kept.length;
    row.cited += new Set(kept.map((s) => s.index)).size;
    row.sent += res.hits.length;
    if (shown++ < show) console.log(`\n## ${first && c.isGold(first.text, fileOf(first.index)) ? "ok" : "MISS"} ${c.q}\n${composeExtractiveAnswer(c.q, context)}`);
  }
  return row;
}

// ---------- the sample KB ----------
const budget = () => makeBudget({ maxPages: 1000, timeoutMs: 120_000 });
async function sampleRow(): Promise<Row> {
  const kb = await createKb("sample");
  const dir = path.resolve("prisma/sample");
  const docs: Array<[string, ParsedDocument]> = [
    ["云笺产品手册.pdf", await parsePdf(readFileSync(path.join(dir, "云笺产品手册.pdf")), budget())],
    ["2025Q2运营报告.docx", await parseDocx({ path: path.join(dir, "2025Q2运营报告.docx") }, budget())],
    ["admin-guide.md", parseMarkdown(readFileSync(path.join(dir, "admin-guide.md")), budget())],
  ];
  for (const [name, doc] of docs) await indexFile(kb, name, chunkDocument(doc));
  await welcomeExamples(kb, docs.map(([name]) => name));
  const cases = SAMPLE_QUESTIONS.map((s, i) => ({ id: `s${i}`, q: s.q, isGold: (t: string) => s.gold.some((g) => norm(t).includes(norm(g))) }));
  return evaluate("sample KB (22 questions)", kb, cases, argv.includes("--show") ? 99 : 0);
}

// The welcome's fixed example questions (zh-CN and en) on the sample KB: what a search answers
// (the path every question took before) and what the chat answers now (an outline for an
// overview question). An overview is good when it names every file of the KB.
const exampleLines: string[] = [];
async function welcomeExamples(kb: string, files: string[]): Promise<void> {
  const keys = ["assistant.example1", "assistant.example2", "assistant.example3", "assistant.example4"] as const;
  const qs = [...keys.map((k) => ZH[k]), ...keys.map((k) => EN[k])];
  const oneLine = (t: string) => t.replace(/\s+/g, " ").replace(/\|/g, "/").slice(0, 90);
  exampleLines.push("| question | search: top score, files cited, answer | chat now | files named |", "| --- | --- | --- | ---: |");
  for (const q of qs) {
    const res = await retrieve({ query: q, topK: TOP_K, knowledgeBaseIds: [kb] }, ctxFor(kb), { db, minScore: MIN_SCORE });
    const context = selectContext(res.hits, BUDGET);
    const searched = res.hits.length ? composeExtractiveAnswer(q, context) : "(no context)";
    const cited = new Set([...searched.matchAll(/\[(\d+)\]/g)].map((m) => context[Number(m[1]) - 1]?.hit.fileName)).size;
    const overview = isOverviewQuestion(q) ? composeOverview(await kbOverview(db, kb, null), hasCjk(q)) : null;
    const now = overview ?? searched;
    const named = files.filter((f) => now.includes(f)).length;
    exampleLines.push(
      `| ${q} | ${res.hits[0]?.score.toFixed(2) ?? "—"}, ${cited} file(s): ${oneLine(searched)} | ${overview ? `overview: ${oneLine(overview)}` : "same as search"} | ${named}/${files.length} |`,
    );
  }
}

// ---------- the shared benchmark sets ----------
interface Doc {
  id: string;
  title: string;
  text: string;
}
const readJsonl = <T,>(file: string): T[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
function qrels(dir: string): Map<string, Set<string>> {
  const m = new Map<string, Set<string>>();
  for (const line of readFileSync(path.join(dir, "qrels.tsv"), "utf8").split("\n").slice(1)) {
    const [q, d, s] = line.split("\t");
    if (!q || !d || Number(s ?? 1) <= 0) continue;
    if (!m.has(q)) m.set(q, new Set());
    m.get(q)!.add(d);
  }
  return m;
}

/** CMRC 2018 sentences, re-joined into their articles' paragraphs; gold = the sentence holding the answer. */
async function cmrcRow(): Promise<Row | null> {
  const dir = path.join(benchDir, "cmrc2018-sent");
  if (!existsSync(dir)) return null;
  const docs = readJsonl<Doc>(path.join(dir, "corpus.jsonl"));
  const rel = qrels(dir);
  const queries = readJsonl<{ id: string; text: string }>(path.join(dir, "queries.jsonl")).filter((q) => rel.has(q.id)).slice(0, limit);
  const byId = new Map(docs.map((d) => [d.id, d]));
  // Only the articles the questions need (plus as many others again, as distractors).
  const wanted = new Set<string>();
  for (const q of queries) for (const d of rel.get(q.id)!) wanted.add(d.replace(/-s\d+$/, ""));
  const articles = new Map<string, Doc[]>();
  for (const d of docs) {
    const a = d.id.replace(/-s\d+$/, "");
    if (!articles.has(a)) articles.set(a, []);
    articles.get(a)!.push(d);
  }
  let extra = wanted.size;
  const kb = await createKb("cmrc");
  for (const [a, ds] of articles) {
    if (!wanted.has(a)) {
      if (extra <= 0) continue;
      extra--;
    }
    const doc: ParsedDocument = { pageCount: null, blocks: [{ kind: "paragraph", text: ds.map((d) => d.text).join(""), page: null, headingPath: [ds[0]!.title] }] };
    await indexFile(kb, ds[0]!.title || a, chunkDocument(doc));
  }
  const cases = queries.map((q) => {
    const gold = [...rel.get(q.id)!].map((d) => norm(byId.get(d)?.text ?? "")).filter(Boolean);
    return { id: q.id, q: q.text, isGold: (t: string) => gold.some((g) => norm(t).includes(g) || (g.includes(norm(t).replace(/…$/, "")) && norm(t).length >= 8)) };
  });
  return evaluate(`CMRC 2018 (${cases.length} questions)`, kb, cases);
}

/** SciFact claims; gold = a sentence of a gold abstract. */
async function scifactRow(): Promise<Row | null> {
  const dir = path.join(benchDir, "scifact-train");
  if (!existsSync(dir)) return null;
  const docs = readJsonl<Doc>(path.join(dir, "corpus.jsonl"));
  const rel = qrels(dir);
  const queries = readJsonl<{ id: string; text: string }>(path.join(dir, "queries.jsonl")).filter((q) => rel.has(q.id)).slice(0, Math.min(limit, 200));
  const kb = await createKb("scifact");
  const fileOf = new Map<string, string>();
  for (const d of docs.slice(0, 2000).concat(docs.filter((d) => queries.some((q) => rel.get(q.id)!.has(d.id))))) {
    if (fileOf.has(d.id)) continue;
    const doc: ParsedDocument = { pageCount: null, blocks: [{ kind: "paragraph", text: d.text, page: null, headingPath: [d.title] }] };
    fileOf.set(d.id, `doc-${d.id}`);
    await indexFile(kb, `doc-${d.id}`, chunkDocument(doc));
  }
  const cases = queries.map((q) => {
    const names = new Set([...rel.get(q.id)!].map((d) => `doc-${d}`));
    return { id: q.id, q: q.text, isGold: (_t: string, fileName: string) => names.has(fileName) };
  });
  return evaluate(`SciFact (${cases.length} claims)`, kb, cases);
}

// --only sample|cmrc|scifact runs one set.
const only = arg("only");
const rows: Row[] = [];
if (!only || only === "sample") rows.push(await sampleRow());
const cmrc = !only || only === "cmrc" ? await cmrcRow() : null;
if (cmrc) rows.push(cmrc);
const sci = !only || only === "scifact" ? await scifactRow() : null;
if (sci) rows.push(sci);

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)} %` : "—");
const lines = [
  `### ${label} (${new Date().toISOString().slice(0, 10)})`,
  "",
  "| set | answered | first sentence holds the answer | some sentence holds it | kept sentences with no question word | with < half of the question's words | sentences / answer | cited / references sent | engine ms / answer |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map(
    (r) =>
      `| ${r.set} | ${r.answers} (${r.noContext} no context) | ${pct(r.first, r.answers)} | ${pct(r.any, r.answers)} | ${pct(r.offTopic, r.sentences)} | ${pct(r.weak, r.sentences)} | ${(r.sentences / (r.answers || 1)).toFixed(2)} | ${pct(r.cited, r.sent)} | ${(r.ms / (r.answers || 1)).toFixed(2)} |`,
  ),
  "",
  ...(exampleLines.length ? ["Welcome example questions on the sample KB:", "", ...exampleLines, ""] : []),
];
console.log(lines.join("\n"));
if (outFile && outFile !== "-") {
  const prev = existsSync(outFile) ? readFileSync(outFile, "utf8") : "";
  writeFileSync(outFile, `${prev}${prev && !prev.endsWith("\n") ? "\n" : ""}${lines.join("\n")}\n`);
}
await handle.close();
rmSync(tmp, { recursive: true, force: true });
process.exit(0);
