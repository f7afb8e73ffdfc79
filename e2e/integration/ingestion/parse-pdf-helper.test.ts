import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { chunkDocument } from "@/lib/ingestion/chunker";
import { ParsePool } from "@/lib/ingestion/parse-pool";
import { parsePdf, PARALLEL_MIN_PAGES } from "@/lib/ingestion/parsers/pdf";
import { DEFAULT_CONTENT_LIMITS, makeBudget } from "@/lib/ingestion/types";
import { harbourManualPdf } from "./support/large-pdf";

// Issue 22 item 2: in the server, a large PDF's parse thread hands half of its pages to a helper
// thread of its own (lib/ingestion/pdf-page-helper.ts), which runs at the parse thread's
// background priority; the file's passages are the ones a single thread makes.

/** Threads of this process at nice 10 (field 19 of /proc/self/task/<tid>/stat). */
function backgroundThreads(): number {
  let n = 0;
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]) === 10) n++;
    } catch {
      // the thread ended meanwhile
    }
  }
  return n;
}

describe.skipIf(process.platform !== "linux")("a large PDF in the parse pool", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ka-parse-pdf-helper-"));
  const pool = new ParsePool({ memoryMb: 512 });
  afterAll(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is parsed by the parse thread and a helper thread at nice 10, into the passages of one thread", async () => {
    const pages = PARALLEL_MIN_PAGES + 60;
    const bytes = await harbourManualPdf(pages);
    const file = path.join(dir, "manual.pdf");
    writeFileSync(file, bytes);
    const chunk = { targetChars: 650, overlapChars: 100 };
    const task = (filePath: string) => ({ fileType: "pdf" as const, filePath, deadline: Date.now() + 120_000, timeoutMs: 120_000, maxPages: 5000, limits: DEFAULT_CONTENT_LIMITS, chunk });
    // A small PDF first: the pool keeps its thread (and the threads it started for itself, such as
    // its module loader's) for the next file, so what the large PDF adds is counted on its own.
    const small = path.join(dir, "small.pdf");
    writeFileSync(small, await harbourManualPdf(3));
    await pool.run(task(small), {});
    const idle = backgroundThreads();
    expect(idle).toBeGreaterThan(0);

    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, backgroundThreads())), 10);
    const progress: number[] = [];
    const result = await pool.run(task(file), { onProgress: (f) => progress.push(f) }).finally(() => clearInterval(sampler));

    // The same parse thread, plus the helper's (and, at most, the helper's own loader thread).
    expect(most).toBeGreaterThan(idle);
    expect(most).toBeLessThanOrEqual(idle + 2);
    expect(progress.at(-1)).toBe(1);
    expect(result.pageCount).toBe(pages);
    const alone = chunkDocument(await parsePdf(bytes, makeBudget({ maxPages: 5000, timeoutMs: 120_000 })), chunk);
    expect(result.chunks.map(({ ordinal, content, pageStart, pageEnd, pageMarks, headingPath }) => ({ ordinal, content, pageStart, pageEnd, pageMarks, headingPath }))).toEqual(alone.map((c) => ({ pageMarks: undefined, ...c })));
    expect(result.chunks.find((c) => c.content.includes(`Berth ${pages} takes`))?.pageEnd).toBe(pages);
  }, 180_000);
});
