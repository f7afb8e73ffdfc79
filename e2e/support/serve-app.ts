// Runs the app's route handlers plus the server boot (database, sample, ingestion runner) as a
// separate process for tests that must kill a real server mid-work:
//   node --conditions=react-server --import tsx e2e/support/serve-app.ts --port 0
// Configuration comes from the environment (DATA_DIR, AUTH_MODE, …). Prints `listening <url>`.
import path from "node:path";
import { bootServer } from "@/lib/server/boot";
import { keepAliveTimeoutMs } from "../../scripts/keep-alive";
import { startTestApp } from "./http-app";

const portArg = process.argv.indexOf("--port");
const port = portArg >= 0 ? Number(process.argv[portArg + 1]) : 0;

await bootServer();
// Connections stay open as long as on the production server (`npm start`), for `bench:chat`.
const app = await startTestApp(path.resolve(process.cwd(), "app"), port, { keepAliveTimeoutMs: keepAliveTimeoutMs() });
console.log(`listening ${app.baseUrl}`);

// Bench aid (KA_EVENT_LOOP_LOG=ms): the main thread's event-loop delay (perf_hooks histogram,
// 10 ms resolution) every interval on stderr, to tell main-thread blocking from DB queueing.
const eldEvery = Number(process.env.KA_EVENT_LOOP_LOG ?? 0);
if (eldEvery > 0) {
  const { monitorEventLoopDelay } = await import("node:perf_hooks");
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  setInterval(() => {
    const f = (n: number) => (n / 1e6).toFixed(0);
    console.error(`[eld] p50 ${f(h.percentile(50))} p99 ${f(h.percentile(99))} max ${f(h.max)} ms`);
    h.reset();
  }, eldEvery).unref();
}

// Bench aid (KA_STALL_LOG=ms): each stall of the main thread's event loop longer than that, with
// its wall-clock time (epoch ms) on stderr, to line stalls up with a bench's slow probes.
const stallMs = Number(process.env.KA_STALL_LOG ?? 0);
if (stallMs > 0) {
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last > stallMs) console.error(`[stall] ${Date.now()} ${(now - last).toFixed(0)} ms`);
    last = now;
  }, 5).unref();
}
