import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantStatus } from "@/lib/assistant/status";
import { getKnowledgeSummary } from "@/lib/db/knowledges";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { getJobSnapshot, subscribeJobProgress, type JobEvent } from "@/lib/ingestion/progress";
import { openTestEnv, type TestEnv } from "./helpers";

// Issue 22, item 5: the file row, the KB's counts and the assistant's status come from one source
// (knowledge_files.status), and every progress event is sent only once that source says what the
// event says.
//
// The check runs where a client reacts: in the event listener, at the moment the event is
// delivered. From then until the check has read the three, the runner's database is held at a
// gate (a Prisma query extension that makes every statement of the runner wait), so the check
// sees exactly the state the database had when the event went out, not a later one. An event
// sent before its stage was committed (the order before commit 36fde0d: emit, then update the
// job, then the file) is caught: the file row still says the previous stage. Verified by
// reverting that order temporarily: this test then fails at "parsing" (file row "queued").

type Expected = { stage: string; ready: number; indexing: number; failed: number; assistant: string };

function expectedFor(e: JobEvent): Expected | null {
  if (e.type === "progress") return { stage: e.stage, ready: 0, indexing: 1, failed: 0, assistant: "indexing" };
  if (e.type === "done") return { stage: "success", ready: 1, indexing: 0, failed: 0, assistant: "ready" };
  return null;
}

/**
 * The runner's client: every statement, and the start of every transaction, waits while
 * `hold()` is pending (see above). Statements inside a transaction the runner has already begun
 * are not held: the check's reads could not pass that transaction on the single embedded
 * connection, and the runner's flow sends no event while one is open.
 */
function gatedClient(db: PrismaClient, hold: () => Promise<void>): PrismaClient {
  const gate = (target: object, fn: (...a: unknown[]) => unknown) =>
    async (...a: unknown[]) => {
      await hold();
      return fn.apply(target, a);
    };
  const delegate = (d: object) =>
    new Proxy(d, {
      get(target, key, recv) {
        const v = Reflect.get(target, key, recv);
        return typeof v === "function" ? gate(target, v) : v;
      },
    });
  return new Proxy(db, {
    get(target, key, recv) {
      const v = Reflect.get(target, key, recv);
      if (typeof key !== "string") return v;
      if (typeof v === "function") return key.startsWith("$") && /^\$(transaction|queryRaw|executeRaw)/.test(key) ? gate(target, v) : v.bind(target);
      return v && typeof v === "object" && !key.startsWith("$") && !key.startsWith("_") ? delegate(v) : v;
    },
  });
}

describe("one source of truth at every progress event", () => {
  let t: TestEnv;
  beforeAll(async () => {
    t = await openTestEnv();
  });
  afterAll(async () => t?.close());

  it("file row, KB counts, assistant status and the job snapshot agree with each event when it is delivered", async () => {
    const kb = await t.newKb();
    const md = Array.from({ length: 150 }, (_, i) => `## Part ${i}\n\nPart ${i} covers the service interval and the spare parts of model ${i}.`).join("\n\n");
    const res = await t.upload(kb, [{ name: "parts.md", data: md }]);
    const f = res.files[0]!;
    if (!f.ok) throw new Error(f.message);
    const fileId = f.file.id;

    // Checks run one after another; the gate stays closed until the last queued one is done.
    let chain: Promise<void> = Promise.resolve();
    let pending = 0;
    let open: Promise<void> = Promise.resolve();
    let release = () => {};
    const checked: string[] = [];
    const failures: string[] = [];
    const events: JobEvent[] = [];

    const check = async (e: JobEvent, want: Expected) => {
      const read = (async () => {
        const file = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: fileId } });
        const summary = await getKnowledgeSummary(t.db, t.userId, kb);
        const snapshot = await getJobSnapshot(t.db, fileId);
        return {
          stage: file.status,
          snapshot: snapshot?.fileStatus,
          ready: summary.ready_file_count,
          indexing: summary.indexing_file_count,
          failed: summary.failed_file_count,
          assistant: assistantStatus(summary, true),
        };
      })();
      // On the single embedded connection a transaction left open at the event would block
      // these reads: that is a divergence too, reported instead of hanging the test.
      const seen = await Promise.race([read, new Promise<"blocked">((r) => setTimeout(() => r("blocked"), 10_000))]);
      const label = e.type === "progress" ? `${e.type} ${e.stage} ${e.percent}% "${e.message}"` : e.type;
      if (seen === "blocked") {
        failures.push(`${label}: the state could not be read (a transaction was open when the event went out)`);
        return;
      }
      const got = { stage: seen.stage, ready: seen.ready, indexing: seen.indexing, failed: seen.failed, assistant: seen.assistant };
      if (JSON.stringify(got) !== JSON.stringify(want) || seen.snapshot !== want.stage) {
        failures.push(`${label}: expected ${JSON.stringify(want)}, read ${JSON.stringify({ ...got, snapshot: seen.snapshot })}`);
      }
      checked.push(`${want.stage} ${e.type === "progress" ? e.percent : 100}`);
    };

    const unsubscribe = subscribeJobProgress(fileId, (e) => {
      events.push(e);
      const want = expectedFor(e);
      if (!want) {
        failures.push(`unexpected event ${JSON.stringify(e)}`);
        return;
      }
      if (pending++ === 0) open = new Promise<void>((r) => (release = r));
      chain = chain
        .then(() => check(e, want))
        .finally(() => {
          if (--pending === 0) release();
        });
    });
    try {
      await t.runJobs({ db: gatedClient(t.db, () => open), batchMs: 5 });
      await chain;
    } finally {
      unsubscribe();
    }

    expect(failures).toEqual([]);
    // Every stage was seen and checked, indexing more than once (its batches), and the end.
    const stages = [...new Set(checked.map((c) => c.split(" ")[0]))];
    expect(stages).toEqual(["parsing", "chunking", "embedding", "indexing", "success"]);
    expect(checked.filter((c) => c.startsWith("indexing")).length).toBeGreaterThan(2);
    const done = events[events.length - 1]!;
    expect(done.type).toBe("done");
    const file = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: fileId } });
    expect(done.type === "done" && done.chunk_count).toBe(file.chunkCount);
    expect(await t.db.chunk.count({ where: { fileId } })).toBe(file.chunkCount);
  });
});
