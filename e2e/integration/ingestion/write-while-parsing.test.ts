import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BatchInfo } from "@/lib/retrieval/index-writer";
import { openTestEnv, type TestEnv } from "./helpers";
import { repetitiveProseMarkdown } from "./support/hostile-uploads";

// Issue 22 item 2: a large file's chunks are written while its parse thread still tokenizes
// the rest (the thread sends the chunk count first, then slices of 200). Without an embedding
// model the first indexing batch commits before the last slice has arrived; the file still ends
// with exactly one copy of each chunk, in order, with its heading runs.

describe("a file's first chunks are written while the rest are still being tokenized", () => {
  let t: TestEnv;
  beforeAll(async () => {
    t = await openTestEnv();
  });
  afterAll(() => t?.close());

  it("the first insert batch commits before every chunk has arrived; the file ends complete", async () => {
    const kb = await t.newKb();
    // ~600 KB of prose with a heading every 20 lines: ~1,000 passages, five or more slices.
    const up = await t.upload(kb, [{ name: "long.md", data: repetitiveProseMarkdown(600 * 1024) }]);
    const fileId = up.files[0]!.ok ? up.files[0]!.file.id : "";
    expect(fileId).not.toBe("");
    const inserts: BatchInfo[] = [];
    await t.runJobs({ onBatch: (info) => void (info.phase === "insert" && inserts.push(info)) });

    const f = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: fileId } });
    expect(f.status).toBe("success");
    const total = f.chunkCount;
    expect(total).toBeGreaterThan(600);
    // Every batch knew the file's total from the start; the first was written with only part of
    // the chunks received.
    expect(inserts.length).toBeGreaterThan(1);
    expect(new Set(inserts.map((b) => b.total))).toEqual(new Set([total]));
    expect(inserts[0]!.received).toBeLessThan(total);
    expect(inserts.at(-1)).toMatchObject({ done: total, received: total });

    // One copy of each chunk, ordinals 0..total-1, and the sections' heading runs.
    const rows = await t.db.$queryRawUnsafe<{ n: number; distinct_ordinals: number; lo: number; hi: number }[]>(
      `SELECT count(*)::int AS n, count(DISTINCT ordinal)::int AS distinct_ordinals, min(ordinal)::int AS lo, max(ordinal)::int AS hi FROM chunks WHERE file_id = $1`,
      fileId,
    );
    expect(rows[0]).toEqual({ n: total, distinct_ordinals: total, lo: 0, hi: total - 1 });
    const runs = await t.db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM heading_term_runs WHERE file_id = $1`, fileId);
    expect(runs[0]!.n).toBeGreaterThan(0);
  });
});
