// Measurement aid for issue 22 item 2 (session 24): what a parse thread's start costs a large
// PDF. Parses bench:ingest's generated 1,500-page PDF (run `npm run bench:ingest -- --under-load
// --corpus-only` first) with the server's parse pool in a fresh process per round, two ways:
//   cold — the task starts the thread (as before session 24, and whenever no upload announced it);
//   warm — ParsePool.warm() started the thread first and it reported ready (what an upload now
//          does while its body is received), then the task.
// Rounds alternate cold, warm, cold, … so both see the same minute of this noisy machine; the
// table gives each round's wall time, the first progress event (the first page extracted) and
// the process's CPU seconds for the task (every thread: the parse thread, V8's helpers).
//
//   node --conditions=react-server --import tsx scripts/parse-thread-start.ts [--rounds 5] [--file e2e/fixtures/guide.md]
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ParsePool } from "@/lib/ingestion/parse-pool";
import type { FileType } from "@/lib/ingestion/sniff";
import { DEFAULT_CONTENT_LIMITS } from "@/lib/ingestion/types";
import { threadCpu } from "./thread-cpu";

const args = process.argv.slice(2);
const opt = (n: string, d: string) => (args.includes(n) ? args[args.indexOf(n) + 1]! : d);

/** The file to parse: `--file <path>` (a .pdf, .md, .docx or .html), else bench:ingest's 1,500-page PDF. */
function target(): { filePath: string; fileType: FileType } {
  const given = opt("--file", "");
  if (given) {
    const ext = path.extname(given).slice(1).toLowerCase();
    const fileType = ({ pdf: "pdf", md: "md", markdown: "md", docx: "docx", html: "html", htm: "html", txt: "txt" } as Record<string, FileType>)[ext];
    if (!fileType) throw new Error(`--file: unsupported extension .${ext}`);
    return { filePath: path.resolve(given), fileType };
  }
  const corpus = readdirSync(tmpdir()).find((n) => n.startsWith("ka-bench-load-corpus-1500-"));
  if (!corpus) throw new Error("run `npm run bench:ingest -- --under-load --corpus-only` first");
  return { filePath: path.join(tmpdir(), corpus, "manual.pdf"), fileType: "pdf" };
}

async function one(mode: "cold" | "warm"): Promise<void> {
  const { filePath, fileType } = target();
  const pool = new ParsePool({ memoryMb: 1024 });
  if (mode === "warm") {
    pool.warm();
    // Wait until the thread reported ready: a task now only finds it idle.
    await pool.idleReady();
  }
  const t0 = performance.now();
  const c0 = threadCpu(process.pid);
  let first = 0;
  const res = await pool.run(
    {
      fileType,
      filePath,
      deadline: Date.now() + 600_000,
      timeoutMs: 600_000,
      maxPages: 5000,
      limits: DEFAULT_CONTENT_LIMITS,
      chunk: { targetChars: 650, overlapChars: 100 },
    },
    { onProgress: () => (first ||= performance.now() - t0) },
  );
  const wall = performance.now() - t0;
  const c1 = threadCpu(process.pid);
  const cpu = c0 && c1 ? c1.main - c0.main + c1.others - c0.others : NaN;
  await pool.close();
  console.log(JSON.stringify({ mode, wall, first, cpu, chunks: res.chunks.length }));
}

async function main(): Promise<void> {
  const child = opt("--child", "");
  if (child === "cold" || child === "warm") return one(child);
  const rounds = Number(opt("--rounds", "5"));
  const rows: string[] = [];
  for (let r = 1; r <= rounds; r++) {
    const cells: string[] = [];
    for (const mode of ["cold", "warm"] as const) {
      const fileArgs = opt("--file", "") ? ["--file", opt("--file", "")] : [];
      const out = spawnSync(process.execPath, [...process.execArgv, path.join(import.meta.dirname, "parse-thread-start.ts"), "--child", mode, ...fileArgs], { encoding: "utf8" });
      const line = out.stdout.trim().split("\n").pop() ?? "";
      if (out.status !== 0 || !line.startsWith("{")) throw new Error(`round ${r} ${mode} failed: ${out.stderr.slice(-500)}`);
      const m = JSON.parse(line) as { wall: number; first: number; cpu: number };
      cells.push(`${(m.wall / 1000).toFixed(m.wall < 1000 ? 2 : 1)} s`, m.first ? `${(m.first / 1000).toFixed(2)} s` : "–", `${(m.cpu / 1000).toFixed(m.cpu < 1000 ? 2 : 1)} s`);
    }
    rows.push(`| ${r} | ${cells.join(" | ")} |`);
    console.error(`[parse-thread-start] round ${r} done`);
  }
  console.log(`| round | cold: parse task | cold: first page | cold: CPU | warm: parse task | warm: first page | warm: CPU |`);
  console.log(`| ---: | ---: | ---: | ---: | ---: | ---: | ---: |`);
  for (const row of rows) console.log(row);
}

void main();
