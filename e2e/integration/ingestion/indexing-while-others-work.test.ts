import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BatchInfo } from "@/lib/retrieval/index-writer";
import { readSse, SAMPLE_CHUNKS, seedIndexedFile } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";
import { repetitiveProseMarkdown } from "./support/hostile-uploads";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

// Issue 16, item 2: one user's large upload must not stop the server for everyone else. The
// attack run's 45 MB file held the database in one indexing transaction for minutes, so sign-in,
// lists and chat all waited. This asserts ORDERING, not time: while user A's file is between two
// committed indexing batches (held there by the runner's onBatch test hook, after the first
// one), user B signs up and in, lists KBs and asks on B's own KB — every answer code 0 — and
// A's file is still not ready before and after; then A's file finishes. If indexing held one
// transaction (or the connection) across batches, B's requests would wait for the hook that is
// only released after them, and the test would time out.
describe("a large upload being indexed while another user works", () => {
  let app: App;

  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "password" });
  });
  afterAll(() => app?.close());

  it("B signs up, signs in, lists and asks while A's file is still indexing; then A's file is ready", async () => {
    const a = new Client(app.baseUrl);
    expect((await a.signUp({ email: "a@example.test", password: "correct horse battery A" })).code).toBe(0);
    const kbA = (await a.json<{ id: string }>("POST", "/v1/knowledges", { name: "A's big KB" })).data.id;
    const form = new FormData();
    // ~1 MB, ~1,500 passages: many indexing batches.
    form.append("files", new Blob([new Uint8Array(repetitiveProseMarkdown(1024 * 1024))], { type: "text/markdown" }), "big.md");
    const up = await a.json<{ files: Array<{ ok: boolean; file: { id: string } }> }>("POST", `/v1/knowledges/${kbA}/files`, form);
    expect(up.code).toBe(0);
    const fileA = up.data.files[0]!.file.id;
    const statusA = async () => (await a.json<{ status: string }>("GET", `/v1/knowledges/${kbA}/files/${fileA}`)).data.status;

    let reachedBatch!: () => void;
    const inBatch = new Promise<void>((r) => (reachedBatch = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let batches = 0;
    const { runPendingJobs } = await import("@/lib/ingestion/runner");
    const { getDb } = await import("@/lib/db/client");
    const running = runPendingJobs({
      db: await getDb(),
      onBatch: async (info: BatchInfo) => {
        if (info.phase !== "insert") return;
        batches++;
        if (batches === 1) {
          reachedBatch();
          await released;
        }
      },
    });
    try {
      await inBatch;
      expect(await statusA()).not.toBe("success");

      const b = new Client(app.baseUrl);
      expect((await b.signUp({ email: "b@example.test", password: "correct horse battery B" })).code).toBe(0);
      const kbB = (await b.json<{ id: string }>("POST", "/v1/knowledges", { name: "B's KB" })).data.id;
      await seedIndexedFile(kbB, "智慧城市政策.pdf", SAMPLE_CHUNKS);
      const list = await b.json<{ items: Array<{ id: string }> }>("GET", "/v1/knowledges");
      expect(list.code).toBe(0);
      expect(list.data.items.map((k) => k.id)).toEqual([kbB]);
      const res = await b.request("POST", `/v1/knowledges/${kbB}/assistant/chat/stream`, { message: "智慧城市政策的实施范围是什么？" });
      expect(res.status).toBe(200);
      const { events } = await readSse(res);
      expect(events.map((e) => e.event)).not.toContain("error");
      expect(events.at(-1)).toMatchObject({ event: "done", data: { finish_reason: "stop" } });
      expect(events.filter((e) => e.event === "delta").map((e) => e.data.text).join("")).toContain("地级市");

      // Still indexing after all of B's requests were answered.
      expect(await statusA()).not.toBe("success");
    } finally {
      release();
    }
    await running;
    expect(batches).toBeGreaterThan(1);
    expect(await statusA()).toBe("success");
  });
});
