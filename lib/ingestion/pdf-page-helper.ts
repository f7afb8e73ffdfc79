import path from "node:path";
import { Worker, resourceLimits } from "node:worker_threads";
import type { PdfLine, PdfPageHelper } from "./parsers/pdf";
import { IngestionFailure, type ContentLimits } from "./types";

// The helper thread of a large PDF's parse (issue 22 item 2): pdf.js extracts text on one thread,
// and extraction is most of a large PDF's time, so the parse thread hands the second half of the
// pages to a thread of its own (pdf-page-worker.mjs) and extracts the first half meanwhile.
// The helper is started from the parse thread, with that thread's heap limits: it is a child of
// it, so when the pool terminates the parse thread (time budget, memory) the helper ends with it.

export interface PdfHelperTask {
  filePath: string;
  deadline: number;
  timeoutMs: number;
  maxPages: number;
  limits: ContentLimits;
}

type HelperMessage =
  | { type: "page" }
  | { type: "done"; pages: PdfLine[][] }
  | { type: "failed"; code: IngestionFailure["code"]; message: string };

function workerEntry(): string {
  return path.join(/* turbopackIgnore: true */ process.cwd(), "lib", "ingestion", "pdf-page-worker.mjs");
}

/** A PdfPageHelper that runs each range in a new helper thread. */
export function pdfPageHelper(task: PdfHelperTask): PdfPageHelper {
  return (range, onPage, signal) =>
    new Promise<PdfLine[][]>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const limits = resourceLimits;
      const worker = new Worker(workerEntry(), {
        execArgv: ["--conditions=react-server"],
        // In the server this runs in a parse thread, whose limits are the file's (PARSE_MEMORY_MB);
        // called from a thread without limits (a script), the helper has none either.
        resourceLimits: limits.maxOldGenerationSizeMb ? limits : undefined,
        workerData: { ...task, ...range },
        stdout: false,
        stderr: false,
      });
      worker.unref();
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener("abort", onAbort);
        void worker.terminate();
        fn();
      };
      const onAbort = () => settle(() => reject(signal.reason));
      signal.addEventListener("abort", onAbort, { once: true });
      worker.on("message", (m: HelperMessage) => {
        if (m.type === "page") onPage();
        else if (m.type === "done") settle(() => resolve(m.pages));
        else if (m.type === "failed") settle(() => reject(new IngestionFailure(m.code, m.message)));
      });
      worker.on("error", (e: Error & { code?: string }) =>
        settle(() =>
          reject(
            e.code === "ERR_WORKER_OUT_OF_MEMORY"
              ? new IngestionFailure("FILE_TOO_LARGE", `Parsing this file needs more than ${limits.maxOldGenerationSizeMb} MB of memory, the limit per file (PARSE_MEMORY_MB). Split it into smaller files and upload them again.`)
              : new IngestionFailure("INTERNAL_ERROR", `The PDF parser's helper stopped unexpectedly (${e.message.slice(0, 200)}). Try "reparse"; if it fails again, report it.`),
          ),
        ),
      );
      worker.on("exit", (code) => settle(() => reject(new IngestionFailure("INTERNAL_ERROR", `The PDF parser's helper stopped unexpectedly (exit ${code}). Try "reparse"; if it fails again, report it.`))));
    });
}
