import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "../support/fake-openai-server";
import { startTestS3, type TestS3 } from "../support/s3-server";
import { Client, freshDatabase } from "../support/test-env";

// Several app instances on one PostgreSQL server with originals in an S3-compatible bucket
// (issue 24), with real parts only: production `next start` servers (scripts/start.sh on the
// build `npm test` made), a PostgreSQL 15 cluster (TEST_DATABASE_URL, started by the test
// script), s3rver on loopback and the local OpenAI-compatible test model server (its
// embeddings answer slowly, so that a job stays in its embedding stage for a few seconds).
//   1. a bad bucket configuration stops the start with a clear message;
//   2. upload through A; A runs the job; a client of B sees A's live stages (LISTEN/NOTIFY);
//      A is killed with SIGKILL mid-job → B takes the job over and finishes it; the original
//      downloads through B;
//   3. a new instance sweeps an orphaned object at start;
//   4. SIGTERM of B: its chat stream ends with SERVER_STOPPING and is saved as aborted, the job
//      it had claimed is released and the other instance finishes it at once;
//   5. SIGKILL of an instance mid-stream: the client's stream breaks without `done`; a surviving
//      instance finds the dead instance's liveness connection gone, saves the turn as
//      interrupted and frees the conversation at once (no lease expiry, no restart).
// Ports: MULTI_PORT_BASE (default 3350) … +4.

const PORT_BASE = Number(process.env.MULTI_PORT_BASE ?? 3350);
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Instance {
  name: string;
  url: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function launch(name: string, port: number, env: Record<string, string>): Instance {
  const child = spawn("bash", ["scripts/start.sh", "--no-build"], {
    env: { ...process.env, ...env, HOST: "127.0.0.1", PORT: String(port), NODE_ENV: "production", TEST_DATABASE_URL: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return { name, url: `http://127.0.0.1:${port}`, child, output: () => out, exited };
}

async function ready(inst: Instance): Promise<Instance> {
  const deadline = Date.now() + 140_000;
  let gone = false;
  void inst.exited.then(() => (gone = true));
  while (Date.now() < deadline) {
    if (gone) throw new Error(`${inst.name} exited during start:\n${inst.output()}`);
    try {
      const r = await fetch(`${inst.url}/api/health`);
      if (r.ok) return inst;
    } catch {
      /* not listening yet */
    }
    await sleep(250);
  }
  throw new Error(`${inst.name} did not become ready:\n${inst.output()}`);
}

/** The exit code of an instance expected to stop by itself (bounded, with its output on timeout). */
async function exitOf(inst: Instance, timeoutMs = 120_000): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${inst.name} did not exit:\n${inst.output()}`)), timeoutMs);
  });
  try {
    return await Promise.race([inst.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
  at: number;
}

/** Reads an SSE response as it arrives; `ended` resolves when the stream ends or breaks. */
function readSse(res: Response): { events: SseEvent[]; ended: Promise<{ broken: boolean }> } {
  const events: SseEvent[] = [];
  const ended = (async () => {
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return { broken: false };
        buf += dec.decode(value, { stream: true });
        let i: number;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const ev = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (ev && data) events.push({ event: ev, data: JSON.parse(data), at: Date.now() });
        }
      }
    } catch {
      return { broken: true };
    }
  })();
  return { events, ended };
}

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

function bigText(tag: string): string {
  // ~300 passages of ~650 characters: 30 embedding calls of 150 ms, 6 progress steps of 50.
  const paras: string[] = [];
  for (let i = 0; i < 1200; i++) {
    paras.push(`${tag} 第${i}段：多实例部署中，任务由任意实例认领，进度通过数据库通知传给其他实例。Paragraph ${i} of ${tag} covers unit ${i}.`);
  }
  return paras.join("\n\n");
}

async function upload(c: Client, kb: string, name: string, text: string): Promise<string> {
  const form = new FormData();
  form.append("files", new Blob([text]), name);
  const up = await c.json<{ files: Array<{ ok: boolean; file: { id: string } }> }>("POST", `/v1/knowledges/${kb}/files`, form);
  expect(up.code).toBe(0);
  return up.data.files[0]!.file.id;
}

describe.skipIf(!process.env.TEST_DATABASE_URL)("two instances on one PostgreSQL server and one bucket", () => {
  let dbUrl: string;
  let db: pg.Client;
  let s3: TestS3;
  let fake: FakeOpenAI;
  let env: Record<string, string>;
  const running: Instance[] = [];
  let a: Instance;
  let b: Instance;
  let a2: Instance;
  let kb: string;
  let firstFile: string;

  const start = (name: string, port: number, extra: Record<string, string> = {}) => {
    const inst = launch(name, port, { ...env, DATA_DIR: mkdtempSync(path.join(tmpdir(), `ka-multi-${name}-`)), ...extra });
    running.push(inst);
    return inst;
  };
  const jobOf = async (fileId: string) =>
    (await db.query<{ status: string; stage: string; attempts: number; locked_by: string | null }>(
      "SELECT status, stage, attempts, locked_by FROM ingestion_jobs WHERE file_id = $1 ORDER BY created_at DESC LIMIT 1",
      [fileId],
    )).rows[0];

  beforeAll(async () => {
    dbUrl = await freshDatabase(process.env.TEST_DATABASE_URL!);
    s3 = await startTestS3();
    fake = await startFakeOpenAI({ tokenMs: 150 });
    fake.setDefault({ endpoint: "embeddings", kind: "ok", delayMs: 150 });
    env = {
      ...s3.env,
      DATABASE_URL: dbUrl,
      AUTH_MODE: "local",
      SEED_SAMPLE: "false",
      INGEST_CONCURRENCY: "1",
      EMBEDDING_MODEL: "fake-embed",
      EMBEDDING_BASE_URL: fake.baseUrl,
      EMBEDDING_API_KEY: "test-key",
      AI_CHAT_MODEL: "qwen-test",
      AI_CHAT_BASE_URL: fake.baseUrl,
      AI_CHAT_API_KEY: "test-key",
      RETRIEVAL_MIN_SCORE: "0",
      SHUTDOWN_GRACE_MS: "1000",
      STORAGE_ORPHAN_GRACE_S: "0",
    };
  }, 60_000);

  afterAll(async () => {
    for (const i of running) i.child.kill("SIGKILL");
    await Promise.all(running.map((i) => i.exited));
    await db?.end();
    await fake?.close();
    await s3?.close();
  });

  it("refuses to start when the bucket refuses the credentials or cannot be reached", async () => {
    // An unknown access key (s3rver checks keys but not SigV4 signatures, so a wrong secret passes).
    const badKey = start("bad-key", PORT_BASE + 3, { S3_ACCESS_KEY_ID: "NOT-A-KEY" });
    const deadEndpoint = start("dead-endpoint", PORT_BASE + 4, { S3_ENDPOINT: "http://127.0.0.1:9" });
    expect(await exitOf(badKey)).toBe(1);
    expect(badKey.output()).toMatch(/cannot start: STORAGE=s3: cannot use bucket "ka-test" at http:\/\/127\.0\.0\.1:\d+: the credentials were refused \(HTTP 403/);
    expect(await exitOf(deadEndpoint)).toBe(1);
    expect(deadEndpoint.output()).toMatch(/cannot start: STORAGE=s3: cannot use bucket "ka-test" at http:\/\/127\.0\.0\.1:9: ECONNREFUSED/);
  }, 150_000);

  it("starts A and B on the same database and bucket", async () => {
    a = start("A", PORT_BASE);
    b = start("B", PORT_BASE + 1);
    await Promise.all([ready(a), ready(b)]);
    db = new pg.Client({ connectionString: dbUrl });
    await db.connect();
  }, 150_000);

  it("A's job is seen live on B, taken over by B when A is killed, and its original downloads through B", async () => {
    const ca = new Client(a.url);
    const cb = new Client(b.url);
    kb = (await ca.json<{ id: string }>("POST", "/v1/knowledges", { name: "multi" })).data.id;
    const text = bigText("甲");

    // B is frozen while A takes the upload, so that A (not B) claims the job.
    b.child.kill("SIGSTOP");
    try {
      firstFile = await upload(ca, kb, "shared.txt", text);
      await until("A to claim the job", async () => (await jobOf(firstFile))?.locked_by?.includes(`:${a.child.pid}:`));
    } finally {
      b.child.kill("SIGCONT");
    }

    const res = await cb.request("GET", `/v1/knowledges/${kb}/files/${firstFile}/parse-job/events`);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const sse = readSse(res);
    // A is still embedding (slow model); B relays every step: "Embedding 50/N", "100/N", "150/N".
    // A snapshot poller (every 2 s without the relay, 15 s with it) would skip steps that are
    // ~0.75 s apart; B sees each of them as A reports it, through NOTIFY.
    const steps = () => new Set(sse.events.filter((e) => e.event === "progress" && e.data.stage === "embedding").map((e) => String(e.data.message)));
    await until("A's embedding steps 50, 100 and 150 on B", () => ["50", "100", "150"].every((n) => [...steps()].some((m) => m.startsWith(`Embedding ${n}/`))), 30_000);
    expect((await jobOf(firstFile))!.locked_by).toContain(`:${a.child.pid}:`);

    a.child.kill("SIGKILL");
    await a.exited;
    // B notices that A's worker connection is gone and runs the job again from the start.
    const done = await until("done on B", () => sse.events.find((e) => e.event === "done"), 60_000);
    expect(done.data).toMatchObject({ status: "success", embedding_status: "success" });
    await sse.ended;
    const stages = sse.events.map((e) => String(e.data.stage ?? e.event));
    expect(stages.lastIndexOf("queued"), "requeued after A died").toBeGreaterThan(stages.indexOf("embedding"));
    const job = (await jobOf(firstFile))!;
    expect(job).toMatchObject({ status: "success", attempts: 2, locked_by: null });
    const dup = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM (SELECT ordinal FROM chunks WHERE file_id = $1 GROUP BY 1 HAVING count(*) > 1) d",
      [firstFile],
    );
    expect(dup.rows[0]!.n).toBe(0);

    const original = await cb.request("GET", `/v1/knowledges/${kb}/files/${firstFile}/original`);
    expect(original.status).toBe(200);
    expect(sha(new Uint8Array(await original.arrayBuffer()))).toBe(sha(Buffer.from(text)));
  }, 180_000);

  it("a new instance removes an orphaned object at start", async () => {
    const orphan = `originals/${kb}/00000000-0000-4000-8000-00000000dead`;
    await s3.put(orphan, "an upload whose row was never written");
    a2 = await ready(start("A2", PORT_BASE + 2));
    await until("the orphan to be swept", async () => !(await s3.keys()).includes(orphan), 30_000);
    expect(await s3.keys()).toContain(`originals/${kb}/${firstFile}`);
  }, 180_000);

  it("SIGTERM: B's chat stream ends with SERVER_STOPPING (saved as aborted) and its claimed job is finished by the other instance", async () => {
    const cb = new Client(b.url);
    const ca2 = new Client(a2.url);
    // A2 frozen during the upload through B: B claims this job.
    a2.child.kill("SIGSTOP");
    let second: string;
    try {
      second = await upload(cb, kb, "second.txt", bigText("乙"));
      await until("B to claim the job", async () => (await jobOf(second))?.locked_by?.includes(`:${b.child.pid}:`));
    } finally {
      a2.child.kill("SIGCONT");
    }

    const chat = await cb.request("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, { message: "多实例部署中任务由谁认领？" });
    expect(chat.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const stream = readSse(chat);
    await until("the first delta", () => stream.events.some((e) => e.event === "delta"), 30_000);
    b.child.kill("SIGTERM");

    const { broken } = await stream.ended;
    expect(broken).toBe(false);
    const last = stream.events[stream.events.length - 1]!;
    expect(last.event).toBe("error");
    expect(last.data.code).toBe("SERVER_STOPPING");
    expect(await exitOf(b, 30_000)).toBe(0);
    expect(b.output()).toMatch(/1 chat stream\(s\) cut at shutdown/);

    const messageId = stream.events.find((e) => e.event === "start")!.data.message_id as string;
    const saved = await db.query<{ finish_reason: string; content: string }>("SELECT finish_reason, content FROM knowledge_assistant_messages WHERE id = $1", [messageId]);
    expect(saved.rows[0]?.finish_reason).toBe("aborted");
    expect(saved.rows[0]!.content.length).toBeGreaterThan(0);

    // Released, not left to go stale (that would take 5 minutes): A2 finishes it now.
    await until("A2 to finish the released job", async () => (await jobOf(second))?.status === "success", 60_000);
    expect((await jobOf(second))!.attempts, "the interrupted attempt is not counted").toBe(1);
    const file = await ca2.json<{ status: string }>("GET", `/v1/knowledges/${kb}/files/${second}`);
    expect(file.data.status).toBe("success");
  }, 180_000);

  it("SIGKILL mid-stream: the client's stream breaks, and the surviving instance saves the turn as interrupted and frees the conversation", async () => {
    // A survivor on B's port (B stopped above).
    const b2 = await ready(start("B2", PORT_BASE + 1));
    const c = new Client(a2.url);
    const cb2 = new Client(b2.url);
    // A long, slow answer: 300 tokens, 100 ms apart (the partial saver writes after 1 s).
    const tokens = Array.from({ length: 300 }, (_, i) => `第${i}句。`);
    fake.script({ kind: "stream", tokens, tokenMs: 100 });
    const chat = await c.request("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, { message: "进度如何传给其他实例？", answer_mode: "creative" });
    const stream = readSse(chat);
    const started = await until("the start event", () => stream.events.find((e) => e.event === "start"), 30_000);
    const conversationId = started.data.conversation_id as string;
    const messageId = started.data.message_id as string;
    const partial = () => db.query<{ finish_reason: string; content: string }>("SELECT finish_reason, content FROM knowledge_assistant_messages WHERE id = $1", [messageId]);
    await until("the partial answer saved while it streams", async () => ((await partial()).rows[0]?.content.length ?? 0) > 0, 30_000);
    a2.child.kill("SIGKILL");
    await a2.exited;
    const { broken } = await stream.ended;
    expect(broken, "the connection broke instead of ending with a terminal event").toBe(true);
    expect(stream.events.some((e) => e.event === "done" || e.event === "error")).toBe(false);

    // B2 sees that A2's liveness connection is gone: the turn is interrupted and the lease
    // released within seconds, not at lease expiry (5 minutes). The bound here is generous for
    // the shared machine; what matters is that it happens with no restart of A2 and no expiry.
    const saved = await until("the turn interrupted by the survivor", async () => {
      const row = (await partial()).rows[0];
      return row?.finish_reason === "interrupted" ? row : undefined;
    }, 60_000);
    expect(tokens.join("")).toContain(saved.content.replace(/^[\s\S]*?：\n\n/, "").slice(0, 6));
    const conv = await db.query<{ active_turn_id: string | null; active_turn_at: Date | null }>(
      "SELECT active_turn_id, active_turn_at FROM knowledge_assistant_conversations WHERE id = $1",
      [conversationId],
    );
    expect(conv.rows[0]!.active_turn_id).toBeNull();
    expect(b2.output()).toMatch(/1 answer\(s\) of a stopped instance marked interrupted/);

    // The browser's next question in that conversation, on the survivor, is answered at once.
    const next = await cb2.request("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, { message: "进度如何传给其他实例？", answer_mode: "creative", conversation_id: conversationId });
    const follow = readSse(next);
    expect((await follow.ended).broken).toBe(false);
    expect(follow.events.at(-1)!.event).toBe("done");
  }, 240_000);
});
