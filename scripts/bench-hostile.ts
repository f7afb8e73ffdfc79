// `npm run bench:hostile`: other users' latency while the two hostile uploads of issue 16, item 2
// are processed — a plain 45 MB Markdown file (random words, `## Section` every 20 lines) and an
// 18 MB DOCX that passes every archive limit with 60 MB of XML inside (generators in
// e2e/integration/ingestion/support/hostile-uploads.ts, cached in the temp dir).
//
// The app runs in its own process (e2e/support/serve-app.ts: route handlers + boot, password
// auth, the ingestion runner as in production); this process is the clients. Idle phase: user B
// signs in, lists KBs and asks on B's KB (time to the SSE `done`, references required), for
// --idle-s seconds.
// Load phase: user A uploads both files in one request into a fresh KB while B runs the same
// loop, until both files are terminal. A is a separate client process (as A's browser is not
// B's): sending 63 MB from the process that times B's requests held B's requests in the
// client, before they reached the server; repeated R times (each load phase lasts only seconds) so
// that the p95 has samples. Reports p50/p95 per operation and the p95 ratio load/idle, the files'
// outcome and time, the server's peak RSS (VmHWM, worker threads included) and its event-loop
// delay (serve-app's KA_EVENT_LOOP_LOG).
//
//   node --conditions=react-server --import tsx scripts/bench-hostile.ts
//        [--idle-s 40] [--repeats 12] [--database-url URL] [--max-chars N] [--label L] [--no-write]
//
// KA_BENCH_TRACE=1: each of B's timed requests (epoch start, duration, phase) and each repeat's
// start as `[client] {json}` lines on stderr, to match them with server-side timings.
// --database-url: a PostgreSQL server (a fresh database on it) instead of the embedded PGlite.
// --max-chars: MAX_EXTRACTED_CHARS for the server (default the app's 20 million), e.g. 40000000
// to let the DOCX through the text limit into mammoth (then the parse-memory limit stops it).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { cachedHostileDocx, cachedHostileMarkdown } from "../e2e/integration/ingestion/support/hostile-uploads";

const ROOT = path.resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : dflt;
};
const IDLE_S = Number(opt("--idle-s", "40"));
const REPEATS = Number(opt("--repeats", "12"));
const PG = opt("--database-url", process.env.BENCH_DATABASE_URL ?? "");
const MAX_CHARS = opt("--max-chars", "");
const LABEL = opt("--label", MAX_CHARS ? `max-chars-${MAX_CHARS}` : "current");
const WRITE = !args.includes("--no-write");
const FILES_DIR = path.join(tmpdir(), "ka-hostile-uploads");
const TERMINAL_TIMEOUT_MS = 10 * 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]! : NaN;
};
const fmt = (n: number) => (Number.isFinite(n) ? `${Math.round(n)} ms` : "–");
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;

async function freshDatabase(serverUrl: string): Promise<string> {
  const pg = (await import("pg")).default;
  const name = `ka_bench_hostile_${Date.now()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

interface Server {
  child: ChildProcess;
  url: string;
  eld: Array<{ at: number; p99: number; max: number }>;
}

function startServer(env: NodeJS.ProcessEnv): Promise<Server> {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "e2e/support/serve-app.ts", "--port", "0"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const eld: Server["eld"] = [];
  let err = "";
  child.stderr!.on("data", (d: Buffer) => {
    err += d.toString();
    let i;
    while ((i = err.indexOf("\n")) >= 0) {
      const line = err.slice(0, i);
      err = err.slice(i + 1);
      const m = /\[eld\] p50 (\d+) p99 (\d+) max (\d+) ms/.exec(line);
      if (m) eld.push({ at: performance.now(), p99: Number(m[2]), max: Number(m[3]) });
      else if (line.trim()) process.stderr.write(`[server] ${line}\n`);
    }
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]!, eld });
    });
    child.on("exit", (code) => reject(new Error(`server exited (${code})`)));
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

/** The server's resident memory now and its peak (kB in /proc; worker threads included). */
function memory(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(s)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

/** A cookie jar per user, as a browser keeps. */
class User {
  private cookie = "";
  constructor(
    readonly base: string,
    readonly email: string,
    readonly password: string,
  ) {}
  async req(method: string, p: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.cookie) headers.cookie = this.cookie;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers["content-type"] = "application/json";
    }
    const res = await fetch(this.base + p, { method, headers, body: payload, redirect: "manual" });
    const set = res.headers.getSetCookie().map((c) => c.split(";")[0]!).filter((c) => !c.endsWith("="));
    if (set.length) this.cookie = set.join("; ");
    return res;
  }
  cookieHeader(): string {
    return this.cookie;
  }
  setCookie(cookie: string): void {
    this.cookie = cookie;
  }
  async json<T>(method: string, p: string, body?: unknown): Promise<T> {
    const res = await this.req(method, p, body);
    const env = (await res.json()) as { code: number | string; msg: string; data: T };
    if (env.code !== 0) throw new Error(`${method} ${p}: ${env.code} ${env.msg}`);
    return env.data;
  }
  async signUp() {
    await this.json("POST", "/v1/auth/sign-up", { email: this.email, password: this.password });
    await this.signIn();
  }
  async signIn() {
    this.cookie = "";
    await this.json("POST", "/v1/auth/sign-in", { email: this.email, password: this.password });
  }
}

/** Time to the SSE `done` of one question; references must have come. */
async function ask(u: User, kb: string, q: string): Promise<void> {
  const res = await u.req("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, { message: q });
  const text = await res.text();
  if (!/^event: references$/m.test(text)) throw new Error(`no references: ${text.slice(0, 200)}`);
  if (/^event: error$/m.test(text)) throw new Error(`error event: ${text.slice(0, 300)}`);
  if (!/^event: done$/m.test(text)) throw new Error("no done event");
}

interface Samples {
  signIn: number[];
  list: number[];
  ask: number[];
  errors: string[];
}
const QUESTIONS = ["How do I check whether a PDF has a text layer?", "What is the retention period for deleted files?", "Which formats can I upload?", "How large may each file be?"];

/**
 * The sign-in limit allows 30 attempts a minute per client address (lib/auth/rate-limit.ts) and
 * every request here comes from 127.0.0.1: B signs in at most once per SIGN_IN_EVERY_MS; lists and
 * asks go on every ROUND_MS.
 */
const SIGN_IN_EVERY_MS = 2_500;
const ROUND_MS = 250;
let lastSignIn = 0;
let curLoad: Samples | null = null;

async function round(b: User, kb: string, i: number, s: Samples): Promise<void> {
  const started = performance.now();
  const time = async (arr: number[], fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    try {
      await fn();
      arr.push(performance.now() - t0);
      if (process.env.KA_BENCH_TRACE) process.stderr.write(`[client] ${JSON.stringify({ t: performance.timeOrigin + t0, op: arr === s.list ? "list" : arr === s.ask ? "ask" : "signin", dur: performance.now() - t0, phase: s === curLoad ? "load" : "idle" })}\n`);
    } catch (e) {
      s.errors.push((e as Error).message.slice(0, 160));
    }
  };
  if (started - lastSignIn >= SIGN_IN_EVERY_MS) {
    lastSignIn = started;
    await time(s.signIn, () => b.signIn());
  }
  await time(s.list, () => b.json("GET", "/v1/knowledges"));
  await time(s.ask, () => ask(b, kb, QUESTIONS[i % QUESTIONS.length]!));
  await sleep(Math.max(0, ROUND_MS - (performance.now() - started)));
}

type Outcome = { name: string; status: string; code: string | null; message: string | null; chunks: number; terminalS: number };

/**
 * User A's side in its own process, as A's browser is not B's: streaming 63 MB from the process
 * that also times B's requests delayed B's requests inside the client (the list request reached
 * the server up to ~200 ms after it was sent while the server's event loop was idle). Uploads
 * both files into the KB it is told, polls until both are terminal, answers the outcomes.
 */
async function uploaderMain(): Promise<void> {
  const [base, cookie, mdPath, docxPath] = [process.env.BENCH_BASE!, process.env.BENCH_COOKIE!, process.env.BENCH_MD!, process.env.BENCH_DOCX!];
  const a = new User(base, "a@bench.test", "");
  a.setCookie(cookie);
  const md = readFileSync(mdPath);
  const docx = readFileSync(docxPath);
  process.on("message", (m: { kb: string }) => {
    void (async () => {
      const start = performance.now();
      const outcomes: Outcome[] = [];
      const f = new FormData();
      f.append("files", new Blob([new Uint8Array(md)], { type: "text/markdown" }), "handbook.md");
      f.append("files", new Blob([new Uint8Array(docx)]), "report.docx");
      const up = await a.json<{ files: Array<{ ok: boolean; code?: string; file: { id: string; name: string } }> }>("POST", `/v1/knowledges/${m.kb}/files`, f);
      const pending = new Map(up.files.map((x) => [x.file.id, x.file.name]));
      const deadline = Date.now() + TERMINAL_TIMEOUT_MS;
      while (pending.size) {
        for (const [id, name] of pending) {
          const row = await a.json<{ status: string; error_code: string | null; error_message: string | null; chunk_count: number }>("GET", `/v1/knowledges/${m.kb}/files/${id}`);
          if (row.status === "success" || row.status === "failed") {
            pending.delete(id);
            outcomes.push({ name, status: row.status, code: row.error_code, message: row.error_message, chunks: row.chunk_count, terminalS: (performance.now() - start) / 1000 });
          }
        }
        if (Date.now() > deadline) throw new Error("files not terminal in time");
        await sleep(100);
      }
      process.send!({ ok: true, outcomes });
    })().catch((e: Error) => process.send!({ ok: false, error: e.message }));
  });
  // The bench ended (or died): nothing left to upload for.
  process.on("disconnect", () => process.exit(0));
  process.send!({ ready: true });
}

async function startUploader(base: string, cookie: string, mdPath: string, docxPath: string) {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", path.join(ROOT, "scripts", "bench-hostile.ts"), "--uploader"], {
    cwd: ROOT,
    env: { ...process.env, BENCH_BASE: base, BENCH_COOKIE: cookie, BENCH_MD: mdPath, BENCH_DOCX: docxPath },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let waiting: ((m: { ok: boolean; outcomes?: Outcome[]; error?: string }) => void) | null = null;
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`uploader exited (${code})`)));
    child.on("message", (m: { ready?: boolean; ok?: boolean; outcomes?: Outcome[]; error?: string }) => {
      if (m.ready) resolve();
      else waiting?.(m as { ok: boolean; outcomes?: Outcome[]; error?: string });
    });
  });
  return {
    upload: (kb: string) =>
      new Promise<Outcome[]>((resolve, reject) => {
        waiting = (m) => (m.ok ? resolve(m.outcomes!) : reject(new Error(m.error)));
        child.send({ kb });
      }),
    stop: () => child.kill(),
  };
}

async function main() {
  const t0 = performance.now();
  const mdPath = cachedHostileMarkdown(FILES_DIR);
  const docxPath = cachedHostileDocx(FILES_DIR);
  console.log(`[bench] files: Markdown ${mb(statSync(mdPath).size)}, DOCX ${mb(statSync(docxPath).size)} (ready in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

  const dataDir = mkdtempSync(path.join(tmpdir(), "ka-bench-hostile-"));
  const databaseUrl = PG ? await freshDatabase(PG) : "";
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    AUTH_MODE: "password",
    SEED_SAMPLE: "false",
    DATABASE_URL: databaseUrl,
    AI_CHAT_MODEL: "",
    AI_CHAT_BASE_URL: "",
    EMBEDDING_MODEL: "",
    EMBEDDING_BASE_URL: "",
    KA_EVENT_LOOP_LOG: "500",
    ...(MAX_CHARS ? { MAX_EXTRACTED_CHARS: MAX_CHARS } : {}),
  };
  const server = await startServer(env);
  const pid = server.child.pid!;
  try {
    const base = server.url;
    const a = new User(base, "a@bench.test", "correct horse battery A");
    const b = new User(base, "b@bench.test", "correct horse battery B");
    await a.signUp();
    await b.signUp();
    const uploader = await startUploader(base, a.cookieHeader(), mdPath, docxPath);
    const kbB = (await b.json<{ id: string }>("POST", "/v1/knowledges", { name: "B's guide" })).id;
    const form = new FormData();
    form.append("files", new Blob([new Uint8Array(readFileSync(path.join(ROOT, "e2e", "fixtures", "guide.md")))]), "guide.md");
    const upB = await b.json<{ files: Array<{ file: { id: string } }> }>("POST", `/v1/knowledges/${kbB}/files`, form);
    const guideId = upB.files[0]!.file.id;
    for (;;) {
      const f = await b.json<{ status: string }>("GET", `/v1/knowledges/${kbB}/files/${guideId}`);
      if (f.status === "success") break;
      if (f.status === "failed") throw new Error("B's file failed");
      await sleep(200);
    }
    // Warm-up (first compiles, caches), not counted.
    for (let i = 0; i < 3; i++) await round(b, kbB, i, { signIn: [], list: [], ask: [], errors: [] });

    // ---- idle
    const idleStart = performance.now();
    const idle: Samples = { signIn: [], list: [], ask: [], errors: [] };
    const idleMem = memory(pid);
    for (let i = 0; performance.now() - idleStart < IDLE_S * 1000; i++) await round(b, kbB, i, idle);
    const idleEnd = performance.now();

    // ---- under load
    const load: Samples = { signIn: [], list: [], ask: [], errors: [] };
    curLoad = load;
    const outcomes: Outcome[] = [];
    const loadWindows: Array<[number, number]> = [];
    let rssPeakLoad = 0;
    let loadRounds = 0;
    for (let r = 0; r < REPEATS; r++) {
      const kbA = (await a.json<{ id: string }>("POST", "/v1/knowledges", { name: `A's uploads ${r + 1}` })).id;
      const start = performance.now();
      if (process.env.KA_BENCH_TRACE) process.stderr.write(`[client] ${JSON.stringify({ t: performance.timeOrigin + start, op: "repeat-start", r })}\n`);
      let done = false;
      const sampler = setInterval(() => (rssPeakLoad = Math.max(rssPeakLoad, memory(pid).rss)), 100);
      const ingest = uploader.upload(kbA).then((os) => void outcomes.push(...os)).finally(() => (done = true));
      // B's loop runs from the moment A starts uploading until both files are terminal.
      for (let i = 0; !done; i++, loadRounds++) await round(b, kbB, i, load);
      await ingest;
      clearInterval(sampler);
      loadWindows.push([start, performance.now()]);
      // The originals of a refused file stay (the user sees why it failed); this KB is done with.
      await a.json("DELETE", `/v1/knowledges/${kbA}`);
      if (r === 0) console.log(`[bench] repeat 1: both files terminal after ${((performance.now() - start) / 1000).toFixed(1)} s`);
    }
    const mem = memory(pid);
    const health = await fetch(`${base}/api/health`).then((r) => r.status);

    // ---- report
    const inWindow = (at: number, ws: Array<[number, number]>) => ws.some(([s, e]) => at >= s && at <= e + 500);
    const eldIdle = server.eld.filter((e) => inWindow(e.at, [[idleStart, idleEnd]]));
    const eldLoad = server.eld.filter((e) => inWindow(e.at, loadWindows));
    const maxOf = (xs: number[]) => (xs.length ? Math.max(...xs) : NaN);
    const row = (name: string, i: number[], l: number[]) =>
      `| ${name} | ${fmt(pct(i, 50))} | ${fmt(pct(i, 95))} | ${fmt(pct(l, 50))} | ${fmt(pct(l, 95))} | ${(pct(l, 95) / pct(i, 95)).toFixed(2)}× | ${i.length} / ${l.length} |`;
    const db = PG ? "PostgreSQL 15 server" : "embedded PGlite";
    const loadAvg = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    const key = `hostile-${PG ? "postgres" : "pglite"}-${LABEL}`;
    const block = [
      `<!-- bench:${key} -->`,
      `### ${LABEL}: ${db}, ${new Date().toISOString().slice(0, 16)}Z (Node ${process.version}, load average at the end ${loadAvg})`,
      "",
      `Idle: ${IDLE_S} s. Under load: ${REPEATS} uploads of both files into a fresh KB of A's (deleted afterwards), B's loop from the start of each upload until both files were terminal: ${loadRounds} rounds in ${(loadWindows.reduce((n, [s0, e]) => n + e - s0, 0) / 1000).toFixed(1)} s. B signs in at most every ${SIGN_IN_EVERY_MS / 1000} s (the per-client sign-in limit), lists and asks every ${ROUND_MS} ms.`,
      "",
      "| B's operation | idle p50 | idle p95 | under load p50 | under load p95 | p95 ratio | samples idle / load |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
      row("sign-in", idle.signIn, load.signIn),
      row("list KBs", idle.list, load.list),
      row("ask (SSE to `done`, with references)", idle.ask, load.ask),
      "",
      `Errors: idle ${idle.errors.length}, under load ${load.errors.length}${load.errors.length ? ` (${[...new Set(load.errors)].slice(0, 3).join("; ")})` : ""}. Health after the run: HTTP ${health}.`,
      "",
      "| file | outcome (all repeats) | code | reason shown | chunks | terminal after the upload started (min–max) |",
      "| --- | --- | --- | --- | ---: | ---: |",
      ...[...new Set(outcomes.map((o) => o.name))].map((name) => {
        const os = outcomes.filter((o) => o.name === name);
        const o = os[0]!;
        const same = os.every((x) => x.status === o.status && x.code === o.code);
        const ts = os.map((x) => x.terminalS);
        return `| ${name} | ${o.status}${same ? ` ×${os.length}` : " (varied)"} | ${o.code ?? "–"} | ${(o.message ?? "").slice(0, 110)} | ${Math.max(...os.map((x) => x.chunks))} | ${Math.min(...ts).toFixed(1)}–${Math.max(...ts).toFixed(1)} s |`;
      }),
      "",
      `Server memory: RSS idle ${mb(idleMem.rss)}, peak while the files were processed ${mb(rssPeakLoad)} (VmHWM of the whole run ${mb(mem.hwm)}).`,
      `Main-thread event-loop delay (0.5 s windows): idle p99 max ${fmt(maxOf(eldIdle.map((e) => e.p99)))}, max ${fmt(maxOf(eldIdle.map((e) => e.max)))}; under load p99 max ${fmt(maxOf(eldLoad.map((e) => e.p99)))}, max ${fmt(maxOf(eldLoad.map((e) => e.max)))}.`,
      `<!-- /bench:${key} -->`,
    ].join("\n");
    console.log(block);
    if (WRITE) {
      const out = path.join(ROOT, "docs", "bench-hostile-uploads.md");
      let doc = existsSync(out) ? readFileSync(out, "utf8") : "# Hostile uploads while another user works (issue 16, item 2)\n\n## Runs\n";
      const re = new RegExp(`<!-- bench:${key} -->[\\s\\S]*?<!-- /bench:${key} -->`);
      doc = re.test(doc) ? doc.replace(re, block) : `${doc.trimEnd()}\n\n${block}\n`;
      writeFileSync(out, doc);
    }
    uploader.stop();
  } finally {
    await stopServer(server.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (args.includes("--uploader")) await uploaderMain();
else await main();
