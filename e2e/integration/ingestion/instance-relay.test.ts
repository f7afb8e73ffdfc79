import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscribeLiveEvents, type LiveEvent } from "@/lib/db/live-events";
import { InstanceRelay, livenessName } from "@/lib/ingestion/instance-relay";
import { subscribeJobProgress, type JobEvent } from "@/lib/ingestion/progress";
import { freshDatabase } from "../../support/test-env";

// The relay between instances on a real PostgreSQL server (LISTEN/NOTIFY): what one instance
// publishes reaches the other's bus and not its own twice; queued jobs wake the other's runner;
// each relay connection carries its worker's liveness name. Two relays in one process stand for
// two instances (each has its own connection). PostgreSQL only: PGlite keeps in-process events.
describe.skipIf(!process.env.TEST_DATABASE_URL)("instance relay over LISTEN/NOTIFY", () => {
  let url: string;
  let a: InstanceRelay;
  let b: InstanceRelay;
  const woke = { a: 0, b: 0 };

  beforeAll(async () => {
    url = await freshDatabase(process.env.TEST_DATABASE_URL!);
    a = new InstanceRelay({ databaseUrl: url, instanceId: "live:aaaaaaaa:1:host-a", onJobsQueued: () => woke.a++ });
    b = new InstanceRelay({ databaseUrl: url, instanceId: "live:bbbbbbbb:2:host-b", onJobsQueued: () => woke.b++ });
    await a.start();
    await b.start();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("delivers another instance's progress to this bus, each stage change and the end at once", async () => {
    const got: JobEvent[] = [];
    const off = subscribeJobProgress("file-1", (e) => got.push(e));
    try {
      a.progress("file-1", { type: "progress", stage: "parsing", percent: 2, message: "Parsing the document" });
      a.progress("file-1", { type: "progress", stage: "chunking", percent: 42, message: "Splitting into passages" });
      a.progress("file-1", { type: "done", status: "success", chunk_count: 3, page_count: null, embedding_status: "skipped", message: "Ready" });
      // The relays share this process's bus: a's own events are ignored by a; b delivers them once.
      await expect.poll(() => got.length, { timeout: 10_000 }).toBe(3);
      expect(got.map((e) => (e.type === "progress" ? e.stage : e.type))).toEqual(["parsing", "chunking", "done"]);
    } finally {
      off();
    }
  });

  it("coalesces rapid progress of one stage but always sends the latest", async () => {
    const got: JobEvent[] = [];
    const off = subscribeJobProgress("file-2", (e) => got.push(e));
    try {
      for (let i = 0; i <= 20; i++) b.progress("file-2", { type: "progress", stage: "parsing", percent: 2 + i, message: `Parsing: ${i * 5}%` });
      await expect.poll(() => got.at(-1)?.type === "progress" && (got.at(-1) as { message: string }).message, { timeout: 10_000 }).toBe("Parsing: 100%");
      expect(got.length).toBeLessThan(21);
    } finally {
      off();
    }
  });

  it("carries other rows' live events (an evaluation run's progress) to the other instance", async () => {
    const got: LiveEvent[] = [];
    const off = subscribeLiveEvents("evaluation-run", "run-1", (e) => got.push(e));
    try {
      a.publish("evaluation-run", "run-1", { type: "progress", run_id: "run-1", status: "running", done: 0, total: 60 });
      // Within one coalescing window: only the latest progress goes out, then the end at once.
      for (const done of [20, 40, 60]) a.publish("evaluation-run", "run-1", { type: "progress", run_id: "run-1", status: "running", done, total: 60 });
      a.publish("evaluation-run", "run-1", { type: "succeeded", run_id: "run-1", status: "succeeded", done: 60, total: 60, metrics: { recall_by_rank: Array(20).fill(0.5) } });
      await expect.poll(() => got.at(-1)?.type, { timeout: 10_000 }).toBe("succeeded");
      const done = got.filter((e) => e.type === "progress").map((e) => e.done as number);
      expect(done[0]).toBe(0);
      expect([...done].sort((x, y) => x - y)).toEqual(done);
      expect((got.at(-1)!.metrics as { recall_by_rank: number[] }).recall_by_rank).toHaveLength(20);
      // Another row's topic or key reaches only its own listeners.
      const other: LiveEvent[] = [];
      const off2 = subscribeLiveEvents("evaluation-run", "run-2", (e) => other.push(e));
      b.publish("evaluation-run", "run-2", { type: "cancelled", run_id: "run-2" });
      await expect.poll(() => other.length, { timeout: 10_000 }).toBe(1);
      off2();
      expect(got.filter((e) => e.run_id === "run-2")).toHaveLength(0);
    } finally {
      off();
    }
  });

  it("wakes the other instance's runner when jobs are queued, not its own", async () => {
    const before = { ...woke };
    a.jobsQueued();
    await expect.poll(() => woke.b, { timeout: 10_000 }).toBe(before.b + 1);
    expect(woke.a).toBe(before.a);
  });

  it("names its connection after the worker, for the liveness check", async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const r = await c.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1", [
        livenessName("live:aaaaaaaa:1:host-a"),
      ]);
      expect(r.rows[0]!.n).toBe(1);
    } finally {
      await c.end();
    }
  });
});
