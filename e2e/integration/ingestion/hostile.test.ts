import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJobSnapshot } from "@/lib/ingestion/progress";
import { fixture, openTestEnv, type TestEnv } from "./helpers";

// Each hostile file ends in a clear error code at upload or a clear failed state after parsing,
// and the runner keeps working for the next file.
describe("hostile files", () => {
  let t: TestEnv;
  beforeAll(async () => {
    t = await openTestEnv();
  });
  afterAll(async () => t?.close());

  it("rejects at upload: zero bytes and a PNG named .pdf", async () => {
    const kb = await t.newKb();
    const res = await t.upload(kb, [
      { name: "empty.txt", data: new Uint8Array(0) },
      { name: "photo.pdf", data: fixture("png-named.pdf") },
    ]);
    expect(res.files).toEqual([
      { ok: false, name: "empty.txt", code: "FILE_TYPE_UNSUPPORTED", message: expect.stringMatching(/empty \(0 bytes\)/) },
      { ok: false, name: "photo.pdf", code: "FILE_TYPE_UNSUPPORTED", message: expect.stringMatching(/PNG image, not a PDF/) },
    ]);
    expect(await t.db.knowledgeFile.count({ where: { knowledgeId: kb } })).toBe(0);
    // Nothing left on disk, not even temp files.
    expect(readdirSync(path.join(t.dataDir, "files", kb))).toEqual([]);
  });

  it("a path/HTML file name is kept as display text only; storage uses a generated id", async () => {
    const kb = await t.newKb();
    const evil = "../../etc/passwd<img src=x onerror=alert(1)>.pdf";
    const res = await t.upload(kb, [{ name: evil, data: fixture("zh-handbook.pdf") }]);
    const f = res.files[0]!;
    expect(f.ok).toBe(true);
    if (!f.ok) return;
    expect(f.file.name).toBe("passwd<img src=x onerror=alert(1)>.pdf");
    expect(f.file.storageKey).toBe(`${kb}/${f.file.id}`);
    expect(f.file.storageKey).toMatch(/^[0-9a-f-]+\/[0-9a-f-]+$/);
    expect(readdirSync(path.join(t.dataDir, "files", kb))).toEqual([f.file.id]);
    await t.runJobs();
    expect((await t.db.knowledgeFile.findUnique({ where: { id: f.file.id } }))?.status).toBe("success");
  });

  it("fail after upload with actionable reasons; the runner keeps serving", async () => {
    const kb = await t.newKb();
    const pages = Array.from({ length: 10_000 }, (_, i) => `第 ${i + 1} 页。This is page ${i + 1} of a very long text.`).join("\f");
    const res = await t.upload(kb, [
      { name: "truncated.pdf", data: fixture("truncated.pdf") },
      { name: "scanned.pdf", data: fixture("scanned.pdf") },
      { name: "encrypted.pdf", data: fixture("encrypted.pdf") },
      { name: "bomb.docx", data: fixture("bomb.docx") },
      { name: "bomb-lying-size.docx", data: fixture("bomb-lying-size.docx") },
      { name: "ten-thousand-pages.txt", data: pages },
      { name: "notes.txt", data: fixture("notes.txt") },
    ]);
    const ids = Object.fromEntries(res.files.map((f) => [f.ok ? f.file.name : f.name, f.ok ? f.file.id : ""]));
    expect(res.files.every((f) => f.ok)).toBe(true);
    await t.runJobs();

    const expectFailed = async (name: string, code: string, message: RegExp) => {
      const file = await t.db.knowledgeFile.findUnique({ where: { id: ids[name]! } });
      expect(file, name).toMatchObject({ status: "failed", errorCode: code, chunkCount: 0, embeddingStatus: "skipped" });
      expect(file!.errorMessage).toMatch(message);
      expect(await t.db.chunk.count({ where: { fileId: ids[name]! } })).toBe(0);
      const snap = await getJobSnapshot(t.db, ids[name]!);
      expect(snap?.event).toEqual({ type: "error", code, message: file!.errorMessage });
      expect(snap?.jobStatus).toBe("failed");
    };
    await expectFailed("truncated.pdf", "FILE_TYPE_UNSUPPORTED", /damaged or incomplete/);
    await expectFailed("scanned.pdf", "FILE_TYPE_UNSUPPORTED", /^scanned PDF \/ no text layer/);
    await expectFailed("encrypted.pdf", "FILE_TYPE_UNSUPPORTED", /encrypted \(password-protected\)/);
    await expectFailed("bomb.docx", "FILE_TOO_LARGE", /zip bomb/);
    await expectFailed("bomb-lying-size.docx", "FILE_TOO_LARGE", /zip bomb/);
    await expectFailed("ten-thousand-pages.txt", "FILE_TOO_LARGE", /10,000 pages.*limit is 2,000 pages/);
    const ok = await t.db.knowledgeFile.findUnique({ where: { id: ids["notes.txt"]! } });
    expect(ok?.status).toBe("success");
  });

  it("a parser overrunning its time budget fails alone", async () => {
    const kb = await t.newKb();
    const res = await t.upload(kb, [{ name: "slow.pdf", data: fixture("zh-handbook.pdf") }]);
    const id = res.files[0]!.ok ? res.files[0]!.file.id : "";
    await t.runJobs({ parseTimeoutMs: 1 });
    const f = await t.db.knowledgeFile.findUnique({ where: { id } });
    expect(f).toMatchObject({ status: "failed", errorCode: "FILE_TOO_LARGE" });
    expect(f?.errorMessage).toMatch(/time budget/);
  });
});
