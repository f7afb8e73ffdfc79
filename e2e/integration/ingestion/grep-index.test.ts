import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { fileView } from "@/lib/db/knowledges";
import { deleteKnowledgeFile, reparseKnowledgeFile } from "@/lib/ingestion/runner";
import { grepStatement } from "@/lib/tools/grep-chunks";
import { openTestEnv, type TestEnv } from "./helpers";

// grep_chunks' trigram index is built after a file is searchable (issue 22 item 2, migration
// 20261214000000, lib/retrieval/grep-index.ts). A keyword is found in a searchable file before
// its entries are built (its chunks are scanned), through the index afterwards, and a reparse or
// a delete leaves no entry behind.

const text = (n: number, word: string) =>
  Array.from({ length: n }, (_, i) => `## Part ${i}\n\nPart ${i} covers the maintenance interval and spare parts${i === n - 1 ? `, and the ${word} clause` : ""}.`).join("\n\n");

async function grep(db: PrismaClient, kb: string, keyword: string): Promise<number[]> {
  const { sql, params } = grepStatement([keyword], [kb], undefined);
  const rows = await db.$queryRawUnsafe<Array<{ ordinal: number }>>(sql, ...params);
  return rows.map((r) => r.ordinal);
}

async function grepRowCount(db: PrismaClient, fileId: string): Promise<number> {
  const [r] = await db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM chunk_grep g JOIN chunks c ON c.id = g.chunk_id WHERE c.file_id = $1`, fileId);
  return r!.n;
}

async function orphanGrepRows(db: PrismaClient): Promise<number> {
  const [r] = await db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM chunk_grep g WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = g.chunk_id)`);
  return r!.n;
}

describe("grep_chunks' trigram index, built after a file is searchable", () => {
  let t: TestEnv;
  beforeAll(async () => {
    t = await openTestEnv();
  });
  afterAll(async () => t?.close());

  it("finds a keyword before the file's entries are built and through the index after; reparse and delete leave none behind", async () => {
    const kb = await t.newKb();
    const res = await t.upload(kb, [{ name: "manual.md", data: text(300, "arbitration") }]);
    const f = res.files[0]!;
    if (!f.ok) throw new Error(f.message);
    const fileId = f.file.id;

    // The runner is held before the grep index's first batch: the file is searchable by then.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let reachedGate!: () => void;
    const atGate = new Promise<void>((r) => (reachedGate = r));
    const run = t.runJobs({
      onGrepBatch: async () => {
        reachedGate();
        await gate;
      },
    });
    await atGate;
    const file = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: fileId } });
    expect(file.status).toBe("success");
    expect(file.grepIndexed).toBe(false);
    expect(fileView(file).grep_indexed).toBe(false); // what the file APIs and the tree report
    expect(await grepRowCount(t.db, fileId)).toBe(0);
    const last = file.chunkCount - 1;
    const before = await grep(t.db, kb, "ARBITRATION");
    expect(before).toContain(last);
    expect(await grep(t.db, kb, "spare parts")).toHaveLength(file.chunkCount);

    release();
    await run;
    const indexed = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: fileId } });
    expect(indexed.grepIndexed).toBe(true);
    expect(fileView(indexed).grep_indexed).toBe(true);
    expect(await grepRowCount(t.db, fileId)).toBe(file.chunkCount);
    // Same matches, now from the index only (the scan arm covers files not grep_indexed).
    expect(await grep(t.db, kb, "ARBITRATION")).toEqual(before);
    expect(await grep(t.db, kb, "spare parts")).toHaveLength(file.chunkCount);
    expect(await grep(t.db, kb, "no such phrase")).toEqual([]);

    // A reparse writes the chunks again under new ids: the old chunks' entries go with them.
    const oldIds = await t.db.chunk.findMany({ where: { fileId }, select: { id: true } });
    await reparseKnowledgeFile(t.db, { knowledgeId: kb, fileId });
    await t.runJobs();
    const reparsed = await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: fileId } });
    expect(reparsed.status).toBe("success");
    expect(reparsed.grepIndexed).toBe(true);
    expect(await t.db.chunk.count({ where: { id: { in: oldIds.map((c) => c.id) } } })).toBe(0);
    expect(await grepRowCount(t.db, fileId)).toBe(reparsed.chunkCount);
    expect(await orphanGrepRows(t.db)).toBe(0);
    expect(await grep(t.db, kb, "arbitration")).toEqual(before);

    await deleteKnowledgeFile(t.db, { knowledgeId: kb, fileId, dataDir: t.dataDir });
    expect(await orphanGrepRows(t.db)).toBe(0);
    expect(await grep(t.db, kb, "arbitration")).toEqual([]);
  }, 120_000);
});
