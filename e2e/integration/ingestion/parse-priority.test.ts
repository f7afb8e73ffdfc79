import { readdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { getPriority, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ParsePool } from "@/lib/ingestion/parse-pool";
import { DEFAULT_CONTENT_LIMITS } from "@/lib/ingestion/types";

// Issue 22 item 1: parse threads are background work. On Linux they run at nice 10
// (lib/ingestion/parse-worker.mjs), so the threads that answer requests (the server's main
// thread, the database's) get the cores first while a large file is parsed; the server's own
// threads keep the process's priority.

/** Nice value of each thread of this process (field 19 of /proc/self/task/<tid>/stat). */
function threadNices(): number[] {
  return readdirSync("/proc/self/task").flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      return [Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16])];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

describe.skipIf(process.platform !== "linux")("parse thread priority", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ka-parse-nice-"));
  const pool = new ParsePool({ memoryMb: 256 });
  afterAll(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a parse thread runs at nice 10; the calling thread keeps its priority", async () => {
    expect(threadNices()).not.toContain(10);
    const file = path.join(dir, "a.md");
    writeFileSync(file, "# Title\n\nSome text to parse, chunk and tokenize.");
    const result = await pool.run(
      { fileType: "md", filePath: file, deadline: Date.now() + 60_000, timeoutMs: 60_000, maxPages: 100, limits: DEFAULT_CONTENT_LIMITS, chunk: { targetChars: 650, overlapChars: 100 } },
      {},
    );
    expect(result.chunks.length).toBe(1);
    // The idle thread is kept for the next file: it is still there, at nice 10.
    const after = threadNices();
    expect(after).toContain(10);
    expect(getPriority()).toBe(0); // this thread's own
  });
});
