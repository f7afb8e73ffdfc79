import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/env";
import { emitJobEvent, getJobSnapshot, subscribeJobProgress, type JobEvent } from "@/lib/ingestion/progress";
import {
  deleteKnowledgeFile,
  IngestionRunner,
  kickRunner,
  reparseKnowledgeFile,
  startIngestionRunner,
  stopIngestionRunner,
} from "@/lib/ingestion/runner";
import { jobProgressStream } from "@/lib/ingestion/sse-progress";
import { startFakeOpenAI, type FakeOpenAI } from "../../support/fake-openai-server";
import { fixture, openTestEnv, type TestEnv } from "./helpers";

async function uploadOne(t: TestEnv, kb: string, name: string, data: Uint8Array | string): Promise<string> {
  const r = (await t.upload(kb, [{ name, data }])).files[0]!;
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  return r.file.id;
}

async function readSse(stream: ReadableStream<Uint8Array>, limitMs = 20_000): Promise<{ events: Array<{ event: string; data: unknown }>; comments: number }> {
  const reader = stream.getReader();
  const dec = new TextDecoder();
  let buf = "";
  const events: Array<{ event: string; data: unknown }> = [];
  let comments = 0;
  const deadline = Date.now() + limitMs;
  for (;;) {
    const r = await Promise.race([reader.read(), new Promise<{ done: true; value: undefined }>((res) => setTimeout(() => res({ done: true, value: undefined }), Math.max(0, deadline - Date.now())))]);
    if (r.done) break;
    buf += dec.decode(r.value, { stream: true });
    let i: number;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const frame = buf.slice(0, i);
      buf = buf.slice(i + 2);
      if (frame.startsWith(":")) comments++;
      const ev = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (ev && data) events.push({ event: ev, data: JSON.parse(data) });
    }
  }
  reader.releaseLock();
  return { events, comments };
}

/** Counts and checks that every (file, ordinal) appears exactly once. */
async function chunkCopies(t: TestEnv, fileId: string) {
  const rows = await t.db.$queryRawUnsafe<{ ordinal: number; n: number }[]>(
    `SELECT ordinal, count(*)::int AS n FROM chunks WHERE file_id = $1 GROUP BY ordinal ORDER BY ordinal`,
    fileId,
  );
  const contents = await t.db.$queryRawUnsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM (SELECT content FROM chunks WHERE file_id = $1 GROUP BY content, heading_path, page_start HAVING count(*) > 1) d`,
    fileId,
  );
  return { ordinals: rows.length, maxCopies: Math.max(0, ...rows.map((r) => r.n)), duplicateContents: contents[0]!.n };
}

describe("job runner", () => {
  let t: TestEnv;
  beforeAll(async () => {
    t = await openTestEnv();
  });
  afterAll(async () => {
    await stopIngestionRunner();
    await t?.close();
  });
  afterEach(async () => {
    await stopIngestionRunner();
  });

  it("stages in order over the bus and SSE; late clients get the final state at once", async () => {
    const kb = await t.newKb();
    const fileId = await uploadOne(t, kb, "手册.pdf", fixture("zh-handbook.pdf"));
    const bus: JobEvent[] = [];
    const off = subscribeJobProgress(fileId, (e) => bus.push(e));
    const live = readSse(jobProgressStream(t.db, fileId, { pollMs: 200 }));
    await t.runJobs();
    off();
    const { events } = await live;
    const stages = [...new Set(events.filter((e) => e.event === "progress").map((e) => (e.data as { stage: string }).stage))];
    // "queued" is seen when the stream's first snapshot wins the race with the runner's claim.
    expect(stages.filter((s) => s !== "queued")).toEqual(["parsing", "chunking", "embedding", "indexing"]);
    expect(["queued", "parsing"]).toContain(stages[0]);
    const last = events[events.length - 1]!;
    expect(last.event).toBe("done");
    expect(last.data).toMatchObject({ status: "success", page_count: 7, embedding_status: "skipped" });
    const percents = events.filter((e) => e.event === "progress").map((e) => (e.data as { percent: number }).percent);
    expect([...percents].sort((a, b) => a - b)).toEqual(percents);
    expect(bus[bus.length - 1]).toMatchObject({ type: "done", status: "success" });

    const t0 = Date.now();
    const late = await readSse(jobProgressStream(t.db, fileId));
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(late.events).toEqual([{ event: "done", data: last.data }]);
  });

  it("SSE heartbeats while quiet, closes on abort, and reports a missing file", async () => {
    const kb = await t.newKb();
    const fileId = await uploadOne(t, kb, "wait.md", "# 等待\n\n排队中的文件。");
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 1200);
    const quiet = await readSse(jobProgressStream(t.db, fileId, { signal: ac.signal, heartbeatMs: 300, pollMs: 60_000 }), 5000);
    expect(quiet.events).toEqual([{ event: "progress", data: { stage: "queued", percent: 0, message: "Waiting to be parsed" } }]);
    expect(quiet.comments).toBeGreaterThanOrEqual(2);
    const missing = await readSse(jobProgressStream(t.db, "no-such-file"));
    expect(missing.events).toEqual([{ event: "error", data: { code: "FILE_NOT_FOUND", message: expect.any(String) } }]);
  });

  it("SSE never steps back to an older polled snapshot", async () => {
    const kb = await t.newKb();
    const fileId = await uploadOne(t, kb, "poll.md", "# 轮询\n\n内容。");
    const ac = new AbortController();
    const reading = readSse(jobProgressStream(t.db, fileId, { signal: ac.signal, pollMs: 100, heartbeatMs: 60_000 }), 5000);
    await new Promise((r) => setTimeout(r, 150));
    // The bus is ahead of the (throttled) DB row, which still says "queued 0".
    emitJobEvent(fileId, { type: "progress", stage: "parsing", percent: 30, message: "Parsing: 70%" });
    setTimeout(() => ac.abort(), 800);
    const { events } = await reading;
    expect(events.map((e) => (e.data as { stage: string; percent: number }).percent)).toEqual([0, 30]);
  });

  it("a job left running by a dead process is requeued and ends with one copy of each chunk", async () => {
    const kb = await t.newKb();
    const fileId = await uploadOne(t, kb, "report.docx", fixture("report.docx"));
    // First, a complete run writes the chunks...
    await t.runJobs();
    const first = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: fileId } });
    expect(first.status).toBe("success");
    // ...then the state a crash after indexing (before "success" was recorded) leaves behind.
    // (lockedAt is old: on a shared PostgreSQL a dead worker is recognised by its stale lock;
    // on embedded PGlite every running job at start-up is orphaned.)
    await t.db.ingestionJob.updateMany({ where: { fileId }, data: { status: "running", stage: "indexing", lockedBy: "dead-host:1234:abcd", lockedAt: new Date(Date.now() - 3_600_000), attempts: 1, finishedAt: null } });
    await t.db.knowledgeFile.update({ where: { id: fileId }, data: { status: "indexing" } });

    await t.runJobs();
    const job = await t.db.ingestionJob.findFirstOrThrow({ where: { fileId } });
    expect(job).toMatchObject({ status: "success", attempts: 2 });
    const file = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: fileId } });
    expect(file.status).toBe("success");
    expect(file.chunkCount).toBe(first.chunkCount);
    const copies = await chunkCopies(t, fileId);
    expect(copies).toEqual({ ordinals: first.chunkCount, maxCopies: 1, duplicateContents: 0 });
    expect(await t.db.chunk.count({ where: { fileId } })).toBe(first.chunkCount);
  });

  it("a job interrupted mid-way on a shared DB is taken over only when its lock is stale", async () => {
    const kb = await t.newKb();
    const fileId = await uploadOne(t, kb, "n.txt", fixture("notes.txt"));
    await t.db.ingestionJob.updateMany({ where: { fileId }, data: { status: "running", stage: "parsing", lockedBy: "other:1:x", lockedAt: new Date(), attempts: 1 } });
    await t.runJobs({ exclusive: false, staleAfterMs: 60_000 });
    expect((await t.db.ingestionJob.findFirstOrThrow({ where: { fileId } })).status).toBe("running"); // fresh lock: left alone
    await t.db.ingestionJob.updateMany({ where: { fileId }, data: { lockedAt: new Date(Date.now() - 120_000) } });
    await t.runJobs({ exclusive: false, staleAfterMs: 60_000 });
    expect((await t.db.ingestionJob.findFirstOrThrow({ where: { fileId } })).status).toBe("success");
  });

  it("after three interrupted attempts the file fails with a reason", async () => {
    const kb = await t.newKb();
    const fileId = await uploadOne(t, kb, "third.md", "# 第三次\n\n内容。");
    await t.db.ingestionJob.updateMany({ where: { fileId }, data: { status: "running", stage: "chunking", lockedBy: "dead:2:y", lockedAt: new Date(Date.now() - 3_600_000), attempts: 3 } });
    await t.runJobs();
    const file = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: fileId } });
    expect(file).toMatchObject({ status: "failed", errorCode: "INTERNAL_ERROR" });
    expect(file.errorMessage).toMatch(/interrupted 3 times/);
  });

  it("a crash inside a stage (simulated) leaves no half-written chunks; the rerun completes", async () => {
    const kb = await t.newKb();
    const fileId = await uploadOne(t, kb, "h.pdf", fixture("zh-handbook.pdf"));
    // The worker "dies" at indexing: it never returns and its job stays running. With one slot,
    // held by the hung job, it claims nothing more, as a dead process would not (with a free
    // slot its poll could take the requeued job back before the new runner did, and hang again).
    const runner = new IngestionRunner({ db: t.db, dataDir: t.dataDir, exclusive: true, pollMs: 50, concurrency: 1, onStage: (stage) => (stage === "indexing" ? new Promise(() => {}) : undefined) });
    const hung = runner.drain();
    for (let i = 0; i < 200 && (await t.db.ingestionJob.findFirstOrThrow({ where: { fileId } })).stage !== "indexing"; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await t.db.chunk.count({ where: { fileId } })).toBe(0);
    // A new process starts; the old worker is gone (its heartbeat stopped long ago).
    await t.db.ingestionJob.updateMany({ where: { fileId }, data: { lockedAt: new Date(Date.now() - 3_600_000) } });
    await t.runJobs();
    await runner.stop(0);
    await hung;
    const file = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: fileId } });
    expect(file.status).toBe("success");
    expect(await chunkCopies(t, fileId)).toEqual({ ordinals: file.chunkCount, maxCopies: 1, duplicateContents: 0 });
  });

  it("process-wide runner: kick, delete (cancels, removes chunks and original), reparse", async () => {
    const kb = await t.newKb();
    await startIngestionRunner({ db: t.db, dataDir: t.dataDir, exclusive: true, pollMs: 100, concurrency: 2 });
    const a = await uploadOne(t, kb, "a.md", fixture("guide.md"));
    const b = await uploadOne(t, kb, "b.html", fixture("privacy.html"));
    kickRunner();
    const waitDone = async (id: string) => {
      for (let i = 0; i < 400; i++) {
        const s = await getJobSnapshot(t.db, id);
        if (s?.terminal) return s;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error("timeout");
    };
    expect((await waitDone(a)).event.type).toBe("done");
    expect((await waitDone(b)).event.type).toBe("done");

    // Reparse: a new job; the old chunks stay until the new ones are written.
    const before = await t.db.chunk.findMany({ where: { fileId: a }, select: { id: true, ordinal: true } });
    const r = await reparseKnowledgeFile(t.db, { knowledgeId: kb, fileId: a });
    expect(r).toMatchObject({ status: "queued", alreadyQueued: false });
    expect((await reparseKnowledgeFile(t.db, { knowledgeId: kb, fileId: a })).alreadyQueued).toBe(true);
    const done = await waitDone(a);
    expect(done.event).toMatchObject({ type: "done", chunk_count: before.length });
    const after = await t.db.chunk.findMany({ where: { fileId: a }, select: { id: true } });
    expect(after).toHaveLength(before.length);
    expect(after.some((c) => before.some((x) => x.id === c.id))).toBe(false);
    expect(await t.db.ingestionJob.count({ where: { fileId: a } })).toBe(2);

    // Delete: row, chunks, terms, jobs and the original are gone; SSE subscribers hear about it.
    const file = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: b } });
    const events: JobEvent[] = [];
    const off = subscribeJobProgress(b, (e) => events.push(e));
    const res = await deleteKnowledgeFile(t.db, { knowledgeId: kb, fileId: b, dataDir: t.dataDir });
    off();
    expect(res.chunkCount).toBe(file.chunkCount);
    expect(await t.db.knowledgeFile.count({ where: { id: b } })).toBe(0);
    expect(await t.db.chunk.count({ where: { fileId: b } })).toBe(0);
    expect(await t.db.$queryRawUnsafe(`SELECT count(*)::int AS n FROM posting_pages WHERE file_id = $1`, b)).toEqual([{ n: 0 }]);
    expect(await t.db.ingestionJob.count({ where: { fileId: b } })).toBe(0);
    expect(existsSync(path.join(t.dataDir, "files", file.storageKey))).toBe(false);
    expect(events).toEqual([{ type: "error", code: "FILE_NOT_FOUND", message: "The file was deleted." }]);
    await expect(deleteKnowledgeFile(t.db, { knowledgeId: kb, fileId: b })).rejects.toMatchObject({ code: "FILE_NOT_FOUND" });
    await expect(reparseKnowledgeFile(t.db, { knowledgeId: "other-kb", fileId: a })).rejects.toMatchObject({ code: "FILE_NOT_FOUND" });
  });

  it("deleting a file while its job runs cancels the job without errors or leftovers", async () => {
    const kb = await t.newKb();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    await startIngestionRunner({ db: t.db, dataDir: t.dataDir, exclusive: true, pollMs: 50, onStage: (s) => (s === "chunking" ? gate : undefined) });
    const id = await uploadOne(t, kb, "big.pdf", fixture("zh-handbook.pdf"));
    kickRunner();
    for (let i = 0; i < 200 && (await t.db.ingestionJob.findFirst({ where: { fileId: id } }))?.stage !== "chunking"; i++) await new Promise((r) => setTimeout(r, 25));
    await deleteKnowledgeFile(t.db, { knowledgeId: kb, fileId: id, dataDir: t.dataDir });
    release();
    await new Promise((r) => setTimeout(r, 300));
    expect(await t.db.chunk.count({ where: { fileId: id } })).toBe(0);
    expect(await t.db.knowledgeFile.count({ where: { id } })).toBe(0);
  });

  it("reparse that fails keeps the previous chunks in use", async () => {
    const kb = await t.newKb();
    const id = await uploadOne(t, kb, "keep.md", fixture("guide.md"));
    await t.runJobs();
    const n = (await t.db.knowledgeFile.findUniqueOrThrow({ where: { id } })).chunkCount;
    await reparseKnowledgeFile(t.db, { knowledgeId: kb, fileId: id });
    await t.runJobs({ parseTimeoutMs: -1 });
    const f = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id } });
    expect(f).toMatchObject({ status: "success", chunkCount: n, errorCode: "FILE_TOO_LARGE" });
    expect(f.errorMessage).toMatch(/^Reparse failed: .*previous index is still in use/);
    expect(await t.db.chunk.count({ where: { fileId: id } })).toBe(n);
    expect((await getJobSnapshot(t.db, id))?.event.type).toBe("error");
  });
});

describe("embeddings", () => {
  let t: TestEnv;
  let fake: FakeOpenAI;
  const saved = { ...process.env };
  beforeAll(async () => {
    t = await openTestEnv();
    fake = await startFakeOpenAI({ dimensions: 16 });
    process.env.EMBEDDING_MODEL = "fake-embed";
    process.env.EMBEDDING_BASE_URL = fake.baseUrl;
    resetEnvForTests();
  });
  afterAll(async () => {
    process.env = saved;
    resetEnvForTests();
    await fake?.close();
    await t?.close();
  });

  it("embeds every chunk with the model name when a model is configured", async () => {
    const kb = await t.newKb();
    const id = await uploadOne(t, kb, "r.docx", fixture("report.docx"));
    await t.runJobs();
    const f = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id } });
    expect(f).toMatchObject({ status: "success", embeddingStatus: "success", errorCode: null });
    const rows = await t.db.$queryRawUnsafe<{ n: number; m: string }[]>(
      `SELECT count(*)::int AS n, min(embedding_model) AS m FROM chunks WHERE file_id = $1 AND embedding IS NOT NULL AND vector_dims(embedding) = 16`,
      id,
    );
    expect(rows[0]).toEqual({ n: f.chunkCount, m: "fake-embed" });
    expect(fake.requests.filter((r) => r.endpoint === "embeddings").length).toBeGreaterThan(0);
  });

  it("an embedding failure leaves the file searchable by keywords and says so", async () => {
    const kb = await t.newKb();
    fake.setDefault({ endpoint: "embeddings", kind: "fail", status: 503 });
    const id = await uploadOne(t, kb, "n.txt", fixture("notes.txt"));
    await t.runJobs();
    fake.reset();
    const f = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id } });
    expect(f).toMatchObject({ status: "success", embeddingStatus: "failed", errorCode: "EMBEDDING_UNAVAILABLE" });
    expect(f.errorMessage).toMatch(/keyword search/);
    expect(await t.db.chunk.count({ where: { fileId: id } })).toBe(f.chunkCount);
    expect(f.chunkCount).toBeGreaterThan(0);
  });
});
