// Issue 22, target 4: how long a second `next start` on an existing data directory takes to
// answer its first request, and where that time goes. Needs a build (`npm run build`).
//
//   node --import tsx scripts/measure-start.ts --data-dir DIR [--port 7500] [--runs 3]
//        [--path /v1/knowledges/tree]
//
// Spawns the production server exactly as `npm run start:server` does (scripts/start.sh
// --no-build: `next start`), polls PATH every 20 ms
// from the spawn, and prints every line the server logs with its time since the spawn (Next's
// "Ready", the boot's "serving after … (database open …)", "background start-up done"), then the
// first answer's time. Stops the server with SIGTERM (a clean stop, as a user's Ctrl-C) and
// starts it again for the next run, so every run after the first opens a directory that a clean
// stop closed.
import { spawn } from "node:child_process";
import http from "node:http";
import { loadavg } from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const opt = (name: string, dflt?: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : dflt;
};
const dataDir = opt("--data-dir");
if (!dataDir) throw new Error("--data-dir DIR is required (an existing data directory)");
const port = Number(opt("--port", "7500"));
const runs = Number(opt("--runs", "3"));
const firstPath = opt("--path", "/v1/knowledges/tree")!;

function get(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
    req.setTimeout(60_000, () => req.destroy());
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function once(run: number): Promise<number> {
  const t0 = performance.now();
  const at = () => `${String(Math.round(performance.now() - t0)).padStart(6)} ms`;
  const child = spawn("bash", ["scripts/start.sh", "--no-build"], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: path.resolve(dataDir!), HOST: "127.0.0.1", PORT: String(port), AUTH_MODE: process.env.AUTH_MODE ?? "local" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = (prefix: string) => (d: Buffer) => {
    for (const line of d.toString().split("\n")) if (line.trim()) console.log(`  ${at()}  ${prefix}${line}`);
  };
  child.stdout.on("data", log(""));
  child.stderr.on("data", log("(stderr) "));
  let first = NaN;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode})`);
    const status = await get(`http://127.0.0.1:${port}${firstPath}`);
    if (status === 200) {
      first = performance.now() - t0;
      break;
    }
    await sleep(20);
  }
  console.log(`  ${at()}  first answer (${firstPath}, HTTP 200)`);
  // Let the background part finish before the stop, as a user's server would.
  await sleep(3000);
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
  console.log(`run ${run}: first answer after ${Math.round(first)} ms (load average ${loadavg()[0]!.toFixed(2)})`);
  return first;
}

const results: number[] = [];
for (let i = 1; i <= runs; i++) results.push(await once(i));
console.log(`first answer: ${results.map((x) => `${Math.round(x)} ms`).join(", ")}`);
