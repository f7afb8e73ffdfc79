import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantStatus } from "@/lib/assistant/status";
import { getKnowledgeSummary } from "@/lib/db/knowledges";
import { getJobSnapshot, subscribeJobProgress, type JobEvent } from "@/lib/ingestion/progress";
import { openTestEnv, type TestEnv } from "./helpers";

// Issue 22, item 5: the file row, the KB's counts and the assistant's status come from one source
// (knowledge_files.status), and every progress event is sent only once that source says what the
// event says. The runner's hooks run right after an event (a new stage: onStage; indexing
// progress: onBatch), while the job waits: there the three are read and compared with it.

describe("one source of truth at every progress event", () => {
  let t: TestEnv;
  beforeAll(async () => {
    t = await openTestEnv();
  });
  afterAll(async () => t?.close());

  it("file row, KB counts, assistant status and the job snapshot agree with each event", async () => {
    const kb = await t.newKb();
    const md = Array.from({ length: 150 }, (_, i) => `## Part ${i}\n\nPart ${i} covers the service interval and the spare parts of model ${i}.`).join("\n\n");
    const res = await t.upload(kb, [{ name: "parts.md", data: md }]);
    const f = res.files[0]!;
    if (!f.ok) throw new Error(f.message);
    const fileId = f.file.id;
    const events: JobEvent[] = [];
    const unsubscribe = subscribeJobProgress(fileId, (e) => void events.push(e));
    const checked: string[] = [];
    const check = async () => {
      const last = events[events.length - 1];
      if (!last || last.type !== "progress") return;
      const file = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: fileId } });
      const summary = await getKnowledgeSummary(t.db, t.userId, kb);
      const snapshot = await getJobSnapshot(t.db, fileId);
      expect(file.status, `file row at "${last.stage}" ${last.message}`).toBe(last.stage);
      expect(snapshot?.fileStatus).toBe(last.stage);
      expect({ ready: summary.ready_file_count, indexing: summary.indexing_file_count, failed: summary.failed_file_count }).toEqual({ ready: 0, indexing: 1, failed: 0 });
      expect(assistantStatus(summary, true)).toBe("indexing");
      checked.push(`${last.stage} ${last.percent}`);
    };
    try {
      await t.runJobs({ batchMs: 5, onStage: check, onBatch: check });
    } finally {
      unsubscribe();
    }
    // Every stage was seen and checked, indexing more than once (its batches).
    const stages = new Set(checked.map((c) => c.split(" ")[0]));
    expect([...stages]).toEqual(["parsing", "chunking", "embedding", "indexing"]);
    expect(checked.filter((c) => c.startsWith("indexing")).length).toBeGreaterThan(2);
    const done = events[events.length - 1]!;
    expect(done.type).toBe("done");
    const file = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: fileId } });
    const summary = await getKnowledgeSummary(t.db, t.userId, kb);
    expect(file.status).toBe("success");
    expect(done.type === "done" && done.chunk_count).toBe(file.chunkCount);
    expect(await t.db.chunk.count({ where: { fileId } })).toBe(file.chunkCount);
    expect(summary.ready_file_count).toBe(1);
    expect(assistantStatus(summary, true)).toBe("ready");
  });
});
