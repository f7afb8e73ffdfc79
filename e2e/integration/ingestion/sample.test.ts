import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_KB_NAME, seedSampleKnowledge } from "@/lib/ingestion/sample";
import { openTestEnv, type TestEnv } from "./helpers";

describe("sample knowledge base", () => {
  let t: TestEnv;
  beforeAll(async () => {
    t = await openTestEnv();
  });
  afterAll(async () => t?.close());

  it("seeds once for a user without KBs; the documents index with pages and headings", async () => {
    const kbId = await seedSampleKnowledge(t.db, { ownerId: t.userId, dataDir: t.dataDir });
    expect(kbId).toBeTruthy();
    expect(existsSync(path.join(t.dataDir, "sample-seeded.json"))).toBe(true);
    const kb = await t.db.knowledge.findUniqueOrThrow({ where: { id: kbId! }, include: { members: true } });
    expect(kb.name).toBe(SAMPLE_KB_NAME);
    expect(kb.members).toEqual([expect.objectContaining({ userId: t.userId, role: "owner" })]);
    await t.runJobs();
    const files = await t.db.knowledgeFile.findMany({ where: { knowledgeId: kbId! }, orderBy: { name: "asc" } });
    expect(files.map((f) => [f.fileType, f.status])).toEqual([
      ["docx", "success"],
      ["md", "success"],
      ["pdf", "success"],
    ]);
    const pdf = files.find((f) => f.fileType === "pdf")!;
    expect(pdf.pageCount).toBe(7);
    const c = await t.db.chunk.findFirst({ where: { fileId: pdf.id, content: { contains: "386 亿元" } } });
    expect(c).toMatchObject({ pageStart: 3, headingPath: "第二章 市场规模 / 2.1 国内市场" });
    const md = files.find((f) => f.fileType === "md")!;
    const audit = await t.db.chunk.findFirst({ where: { fileId: md.id, content: { contains: "Audit logs: 180 days" } } });
    expect(audit?.headingPath).toBe("Yunjian Workspace Administrator Guide / 3. Data retention");

    // Idempotent: never again, even after the sample KB is deleted.
    expect(await seedSampleKnowledge(t.db, { ownerId: t.userId, dataDir: t.dataDir })).toBeNull();
    await t.db.knowledge.delete({ where: { id: kbId! } });
    expect(await seedSampleKnowledge(t.db, { ownerId: t.userId, dataDir: t.dataDir })).toBeNull();
  });

  it("does nothing for a user who already has a KB (and remembers that)", async () => {
    const other = await openTestEnv();
    try {
      await other.newKb("mine");
      expect(await seedSampleKnowledge(other.db, { ownerId: other.userId, dataDir: other.dataDir })).toBeNull();
      expect(existsSync(path.join(other.dataDir, "sample-seeded.json"))).toBe(true);
      expect(await other.db.knowledge.count({ where: { ownerId: other.userId } })).toBe(1);
    } finally {
      await other.close();
    }
  });
});
