// Entry of a parse worker thread (lib/ingestion/parse-pool.ts starts it with
// --conditions=react-server). The parsers, chunker and tokenizer are the app's TypeScript
// modules, loaded through tsx's loader exactly as the scripts load them, so one source serves the
// server, the tests and this thread. One task at a time; the pool terminates the thread when a
// task overruns its time budget or its memory limit.
import { setPriority } from "node:os";
import path from "node:path";
import { parentPort } from "node:worker_threads";
import { register } from "tsx/esm/api";

/** Nice value of a parse thread (0 normal … 19 lowest). */
const PARSE_THREAD_NICE = 10;

// pdf.js may still enqueue text into a page's stream after the limits cancelled it; that late
// error concerns a task already answered. Anything else ends the thread (the pool sees it exit).
process.on("uncaughtException", (e) => {
  if (e && e.code === "ERR_INVALID_STATE") return;
  console.error(`[ingestion] parse worker: ${e && e.message}`);
  process.exit(1);
});

// Background work: this thread yields the cores to the threads that answer requests (the
// server's main thread and the database's). On Linux a nice value belongs to a thread, and
// setpriority(0) is the calling thread's (man 2 setpriority, NOTES); elsewhere it may be the
// whole process's, so it is applied on Linux only. Not allowed (a container without the right to
// lower priorities is fine: raising the nice value is always allowed): ignored.
if (process.platform === "linux") {
  try {
    setPriority(PARSE_THREAD_NICE);
  } catch {
    // the thread keeps the process's priority
  }
}

const root = process.cwd();
register({ tsconfig: path.join(root, "tsconfig.json") });
const { runParseTask, prepareParseThread } = await import(path.join(root, "lib", "ingestion", "parse-task.ts"));
await prepareParseThread();

// Slices of chunks are sent one at a time: the next waits for the pool's "taken" (parse-pool.ts
// answers after its event loop had a turn), so the server's thread receives one slice per turn
// instead of a whole file's slices at once (parse-task.ts).
let taken = null;
parentPort.on("message", (m) => {
  if (m && m.type === "taken") {
    const resolve = taken;
    taken = null;
    resolve?.();
    return;
  }
  const post = (out) => {
    parentPort.postMessage(out);
    if (out.type === "chunks") return new Promise((resolve) => (taken = resolve));
  };
  void runParseTask(m, post).then(() => parentPort.postMessage({ type: "idle" }));
});
parentPort.postMessage({ type: "ready" });
