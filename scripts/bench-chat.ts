// npm run bench:chat — time to `references` and to the first `delta` (p50, p95) for 1, 10 and
// 50 concurrent chat streams on a KB holding the sample documents' text, with the extractive
// engine and with the local test model server streaming at a fixed token rate. Real HTTP and
// SSE against the real route handlers, on the embedded database. Writes docs/benchmarks-chat.md.
import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startFakeOpenAI } from "../e2e/support/fake-openai-server";

const LEVELS = (process.env.BENCH_LEVELS ?? "1,10,50").split(",").map(Number);
const QUESTIONS = [
  "智慧城市政策的实施范围是什么？",
  "市场规模有多大？",
  "How long is the battery warranty?",
  "How do I reset the device?",
];

interface Sample {
  refsMs: number;
  firstDeltaMs: number | null;
  ok: boolean;
  error?: string;
}

async function oneStream(baseUrl: string, kb: string, q: string): Promise<Sample> {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}/v1/knowledges/${kb}/assistant/chat/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: q }),
  });
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = "";
  let refsMs = -1;
  let firstDeltaMs: number | null = null;
  let ok = false;
  let error: string | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const ev = /^event: (.*)$/m.exec(block)?.[1];
      if (ev === "references" && refsMs < 0) refsMs = performance.now() - t0;
      if (ev === "delta" && firstDeltaMs === null) firstDeltaMs = performance.now() - t0;
      if (ev === "done") ok = true;
      if (ev === "error") error = /^data: (.*)$/m.exec(block)?.[1];
    }
  }
  return { refsMs, firstDeltaMs, ok, error };
}

async function freshDatabase(serverUrl: string): Promise<string> {
  const pg = (await import("pg")).default;
  const name = `ka_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]! : NaN;
};

async function run(engine: "extractive" | "model", tokenMs: number) {
  const model = engine === "model" ? await startFakeOpenAI({ tokenMs }) : null;
  process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), "ka-bench-chat-"));
  process.env.AUTH_MODE = "local";
  process.env.SEED_SAMPLE = "false";
  // BENCH_DATABASE_URL: run against a PostgreSQL server instead (a fresh database on it).
  if (process.env.BENCH_DATABASE_URL) process.env.DATABASE_URL = await freshDatabase(process.env.BENCH_DATABASE_URL);
  else delete process.env.DATABASE_URL;
  if (model) {
    process.env.AI_CHAT_MODEL = "bench-model";
    process.env.AI_CHAT_BASE_URL = model.baseUrl;
  } else {
    delete process.env.AI_CHAT_MODEL;
    delete process.env.AI_CHAT_BASE_URL;
  }
  const { resetEnvForTests } = await import("../lib/env");
  const { closeDb } = await import("../lib/db/client");
  resetEnvForTests();
  await closeDb();
  const { startTestApp } = await import("../e2e/support/http-app");
  const { seedIndexedFile, SAMPLE_CHUNKS } = await import("../e2e/support/seed");
  const app = await startTestApp(path.resolve("app"));
  const kbRes = await fetch(`${app.baseUrl}/v1/knowledges`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "bench" }),
  });
  const kb = ((await kbRes.json()) as { data: { id: string } }).data.id;
  // Enough text that retrieval does real work: the sample passages plus 2,000 filler chunks.
  await seedIndexedFile(kb, "sample.pdf", SAMPLE_CHUNKS);
  await seedIndexedFile(
    kb,
    "filler.md",
    Array.from({ length: 2000 }, (_, i) => ({ content: `第${i}节 产品说明：设备型号 X${i} 的参数、接口与维护周期，适用于园区与楼宇场景。Model X${i} maintenance schedule.` })),
  );
  await oneStream(app.baseUrl, kb, QUESTIONS[0]!); // warm-up
  const rows: string[] = [];
  for (const n of LEVELS) {
    const samples = await Promise.all(Array.from({ length: n }, (_, i) => oneStream(app.baseUrl, kb, QUESTIONS[i % QUESTIONS.length]!)));
    const refs = samples.map((s) => s.refsMs).filter((x) => x >= 0);
    const first = samples.map((s) => s.firstDeltaMs).filter((x): x is number => x !== null);
    const errors = samples.filter((s) => !s.ok).length;
    rows.push(
      `| ${engine}${model ? ` (${tokenMs} ms/token)` : ""} | ${n} | ${pct(refs, 50).toFixed(0)} | ${pct(refs, 95).toFixed(0)} | ${pct(first, 50).toFixed(0)} | ${pct(first, 95).toFixed(0)} | ${errors} |`,
    );
    console.log(rows.at(-1));
  }
  await app.close();
  await closeDb();
  await model?.close();
  return rows;
}

async function main() {
  const rows = [...(await run("extractive", 0)), ...(await run("model", 20))];
  const dbLabel = process.env.BENCH_DATABASE_URL ? "PostgreSQL 15 server (local cluster, fsync on)" : "embedded PGlite";
  const doc = `# Chat latency benchmark

Measured by \`npm run bench:chat\` on ${new Date().toISOString().slice(0, 10)} (2 cores, Node ${process.version}), ${dbLabel},
real HTTP + SSE against the real route handlers; KB of ${SAMPLE_NOTE}. Times in milliseconds from
sending the request; p95 over the streams of one level. "errors" counts streams without \`done\`.

| engine | concurrent streams | references p50 | references p95 | first delta p50 | first delta p95 | errors |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join("\n")}
`;
  mkdirSync("docs", { recursive: true });
  const out = process.env.BENCH_DATABASE_URL ? "docs/benchmarks-chat-postgres.md" : "docs/benchmarks-chat.md";
  writeFileSync(out, doc);
  console.log(`wrote ${out}`);
  process.exit(0);
}

const SAMPLE_NOTE = "2,004 chunks (4 sample passages + 2,000 generated product-note chunks)";
void main();
