import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv } from "@/lib/env";
import { getParsePool, ParsePool } from "@/lib/ingestion/parse-pool";
import { startIngestionRunner, stopIngestionRunner } from "@/lib/ingestion/runner";
import { DEFAULT_CONTENT_LIMITS } from "@/lib/ingestion/types";
import { FIXTURES, openTestEnv, type TestEnv } from "./helpers";

// Issue 22: a parse thread is started ahead of its task, so a file's parse does not begin by
// starting a thread and loading pdf.js and the tokenizer's dictionaries (~0.8 s on the CI
// machine, most of a small file's parse; docs/bench-ingest-under-load.md, session 24).

const pdfTask = () => ({
  fileType: "pdf" as const,
  filePath: path.join(FIXTURES, "zh-handbook.pdf"),
  deadline: Date.now() + 60_000,
  timeoutMs: 60_000,
  maxPages: 100,
  limits: DEFAULT_CONTENT_LIMITS,
  chunk: { targetChars: 650, overlapChars: 100 },
});

describe("parse pool: a thread started ahead of its task", () => {
  const pool = new ParsePool({ memoryMb: 256 });
  afterAll(() => pool.close());

  it("warm() starts one thread, which the next task uses", async () => {
    expect(pool.idleThreadIds()).toEqual([]);
    pool.warm();
    const [warmed] = pool.idleThreadIds();
    expect(warmed).toBeGreaterThan(0);
    pool.warm(); // a thread is already waiting: no second one
    expect(pool.idleThreadIds()).toEqual([warmed]);
    const result = await pool.run(pdfTask());
    expect(result.chunks.length).toBeGreaterThan(0);
    expect(result.pageCount).toBeGreaterThan(0);
    // The warmed thread parsed the file and waits for the next one; no other thread was started.
    expect(pool.idleThreadIds()).toEqual([warmed]);
  });

  it("a waiting thread that ends is not handed a task", async () => {
    const [idle] = pool.idleThreadIds();
    expect(idle).toBeDefined();
    // End it from outside (as a crash would) and wait until the pool has seen it go.
    const worker = (pool as unknown as { idle: Array<{ worker: { threadId: number; terminate(): Promise<number> } }> }).idle.find((s) => s.worker.threadId === idle)!.worker;
    await worker.terminate();
    await expect.poll(() => pool.idleThreadIds()).toEqual([]);
    const result = await pool.run(pdfTask());
    expect(result.chunks.length).toBeGreaterThan(0);
    expect(pool.idleThreadIds()).toHaveLength(1);
    expect(pool.idleThreadIds()).not.toContain(idle);
  });
});

describe("parse pool: one thread kept ready (the server's runner)", () => {
  const idleMs = 300;
  const resident = new ParsePool({ memoryMb: 256, idleMs });
  const plain = new ParsePool({ memoryMb: 256, idleMs });
  afterAll(() => Promise.all([resident.close(), plain.close()]));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it("a fresh thread outlives the idle time; a task that takes it starts a spare; the used one ends after the idle time", async () => {
    resident.keepOneReady();
    const [fresh] = resident.idleThreadIds();
    expect(fresh).toBeGreaterThan(0);
    await resident.idleReady();
    await sleep(idleMs * 3);
    expect(resident.idleThreadIds()).toEqual([fresh]); // never used: kept
    await resident.run(pdfTask());
    // The task took the only ready thread, so a spare was started; the used one waits too.
    const afterTask = resident.idleThreadIds();
    expect(afterTask).toHaveLength(2);
    expect(afterTask).toContain(fresh);
    const spare = afterTask.find((id) => id !== fresh)!;
    // After the idle time the used thread ends; the spare, never used, stays.
    await expect.poll(() => resident.idleThreadIds(), { timeout: 10_000 }).toEqual([spare]);
    await sleep(idleMs * 3);
    expect(resident.idleThreadIds()).toEqual([spare]);
  });

  it("a ready thread that dies while waiting is replaced", async () => {
    const [waiting] = resident.idleThreadIds();
    expect(waiting).toBeDefined();
    await resident.idleReady();
    const worker = (resident as unknown as { idle: Array<{ worker: { threadId: number; terminate(): Promise<number> } }> }).idle.find((s) => s.worker.threadId === waiting)!.worker;
    await worker.terminate(); // from outside, as a crash would
    await expect.poll(() => resident.idleThreadIds(), { timeout: 10_000 }).toHaveLength(1);
    expect(resident.idleThreadIds()).not.toContain(waiting);
  });

  it("without it, a used thread ends after the idle time and none replaces it", async () => {
    await plain.run(pdfTask());
    expect(plain.idleThreadIds()).toHaveLength(1);
    await expect.poll(() => plain.idleThreadIds(), { timeout: 10_000 }).toEqual([]);
    await sleep(idleMs * 3);
    expect(plain.idleThreadIds()).toEqual([]);
  });
});

describe("the server's runner", () => {
  let t: TestEnv;
  beforeAll(async () => {
    t = await openTestEnv();
  });
  afterAll(async () => t?.close());

  it("has a parse thread ready before any file arrives", async () => {
    const pool = getParsePool(getEnv().PARSE_MEMORY_MB);
    expect(pool.idleThreadIds()).toEqual([]); // nothing in this file used the process-wide pool
    await startIngestionRunner({ db: t.db, dataDir: t.dataDir, exclusive: true, pollMs: 100 });
    try {
      expect(pool.idleThreadIds()).toHaveLength(1);
    } finally {
      await stopIngestionRunner(0);
      await pool.close();
    }
  });
});
