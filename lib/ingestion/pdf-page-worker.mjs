// Entry of a PDF parse's helper thread (lib/ingestion/pdf-page-helper.ts starts it from a parse
// thread): extracts the pages workerData.from..to of workerData.filePath and sends their lines.
// The file's compressed streams were checked by the parse that started it.
import { readFile } from "node:fs/promises";
import { setPriority } from "node:os";
import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

// As in parse-worker.mjs: pdf.js may enqueue text into a page's stream after the limits cancelled
// it; anything else ends the thread (the parse sees it exit).
process.on("uncaughtException", (e) => {
  if (e && e.code === "ERR_INVALID_STATE") return;
  console.error(`[ingestion] pdf page helper: ${e && e.message}`);
  process.exit(1);
});

// Background work, like the parse thread that started it (parse-worker.mjs).
if (process.platform === "linux") {
  try {
    setPriority(10);
  } catch {
    // the thread keeps the process's priority
  }
}

const root = process.cwd();
register({ tsconfig: path.join(root, "tsconfig.json") });
const { extractPdfPageRange } = await import(path.join(root, "lib", "ingestion", "parsers", "pdf.ts"));
const { IngestionFailure, makeBudget } = await import(path.join(root, "lib", "ingestion", "types.ts"));

const { filePath, from, to, deadline, timeoutMs, maxPages, limits } = workerData;
try {
  const budget = makeBudget({ maxPages, timeoutMs, deadline, limits });
  const data = new Uint8Array(await readFile(filePath));
  const pages = await extractPdfPageRange(data, from, to, budget, () => parentPort.postMessage({ type: "page" }));
  parentPort.postMessage({ type: "done", pages });
} catch (e) {
  const f = e instanceof IngestionFailure ? e : new IngestionFailure("INTERNAL_ERROR", `Parsing failed unexpectedly (${e instanceof Error ? e.message.slice(0, 200) : String(e)}).`);
  parentPort.postMessage({ type: "failed", code: f.code, message: f.message });
}
