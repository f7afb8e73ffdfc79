import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { receiveUpload } from "@/lib/ingestion/upload";
import { fixture, openTestEnv, type TestEnv } from "./helpers";

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    return e as AppError;
  }
  throw new Error("expected a rejection");
}

/** A multipart body streamed in 64 KB pieces: one file of `size` bytes of "a" (never in memory). */
/** `onPiece` is called before each 64 KB piece (fresh memory each, so holding them would show). */
function streamingMultipart(size: number, name = "big.txt", onPiece?: (sent: number) => void): { body: ReadableStream<Uint8Array>; contentType: string } {
  const boundary = "----ka-test-boundary";
  const head = new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n`);
  const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
  const pieceBytes = 64 * 1024;
  let sent = -1;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent < 0) {
        c.enqueue(head);
        sent = 0;
      } else if (sent < size) {
        onPiece?.(sent);
        const n = Math.min(pieceBytes, size - sent);
        c.enqueue(new Uint8Array(n).fill(0x61));
        sent += n;
      } else {
        c.enqueue(tail);
        c.close();
      }
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

describe("upload limits", () => {
  let t: TestEnv;
  beforeAll(async () => {
    t = await openTestEnv();
  });
  afterAll(async () => t?.close());

  const req = (body: BodyInit, headers: Record<string, string>) =>
    new Request("http://localhost/x", { method: "POST", body, headers, duplex: "half" } as RequestInit);

  it("FILE_TOO_LARGE for one file while streaming, without buffering it; the others are stored", async () => {
    const kb = await t.newKb();
    // Memory still held while the upload streams: every 4 MB the body collects garbage and
    // reads what the buffers hold. Buffering the file would keep growing it; streaming keeps
    // it flat. (RSS was tried first and was too noisy with other pools in the process.)
    const gc = global.gc;
    expect(gc, "integration tests run with --expose-gc").toBeTypeOf("function");
    gc!();
    const base = process.memoryUsage().arrayBuffers;
    let peak = 0;
    const { body, contentType } = streamingMultipart(80 * 1024 * 1024, "big.txt", (sent) => {
      if (sent % (4 * 1024 * 1024) !== 0) return;
      gc!();
      peak = Math.max(peak, process.memoryUsage().arrayBuffers - base);
    });
    const res = await receiveUpload(req(body, { "content-type": contentType }), {
      knowledgeId: kb,
      userId: t.userId,
      db: t.db,
      dataDir: t.dataDir,
      limits: { maxFileBytes: 5 * 1024 * 1024, maxFilesPerRequest: 20 },
      notify: () => {},
    });
    expect(res.files).toEqual([{ ok: false, name: "big.txt", code: "FILE_TOO_LARGE", message: expect.stringMatching(/larger than the 5 MB limit/) }]);
    // 80 MB went through; what was held at any point stayed far below it.
    expect(peak).toBeLessThan(16 * 1024 * 1024);
    expect(readdirSync(path.join(t.dataDir, "files", kb))).toEqual([]);

    const mixed = await t.upload(kb, [
      { name: "small.txt", data: "小文件。" },
      { name: "large.txt", data: "x".repeat(3000) },
    ], { maxFileBytes: 1000 });
    expect(mixed.files.map((f) => (f.ok ? "ok" : f.code))).toEqual(["ok", "FILE_TOO_LARGE"]);
  });

  it("PAYLOAD_TOO_LARGE for a body over the hard cap (declared or streamed)", async () => {
    const kb = await t.newKb();
    const limits = { maxFileBytes: 1024 * 1024, maxFilesPerRequest: 2 };
    const declared = await rejection(
      receiveUpload(req("x", { "content-type": "multipart/form-data; boundary=b", "content-length": String(50 * 1024 * 1024) }), { knowledgeId: kb, userId: t.userId, db: t.db, dataDir: t.dataDir, limits }),
    );
    expect(declared.code).toBe("PAYLOAD_TOO_LARGE");
    const { body, contentType } = streamingMultipart(6 * 1024 * 1024);
    const streamed = await rejection(receiveUpload(req(body, { "content-type": contentType }), { knowledgeId: kb, userId: t.userId, db: t.db, dataDir: t.dataDir, limits }));
    expect(streamed.code).toBe("PAYLOAD_TOO_LARGE");
    expect(readdirSync(path.join(t.dataDir, "files", kb))).toEqual([]);
  });

  it("files per request", async () => {
    const kb = await t.newKb();
    const res = await t.upload(kb, [1, 2, 3].map((i) => ({ name: `n${i}.txt`, data: `文件 ${i}` })), { maxFilesPerRequest: 2 });
    expect(res.files.map((f) => (f.ok ? "ok" : f.code))).toEqual(["ok", "ok", "INVALID_PARAMS"]);
    expect(res.files[2]).toMatchObject({ name: "n3.txt", message: expect.stringMatching(/at most 2/) });
  });

  it("KB quota", async () => {
    const kb = await t.newKb();
    const first = await t.upload(kb, [{ name: "a.txt", data: "a".repeat(600) }], { maxKbBytes: 1000 });
    expect(first.files[0]!.ok).toBe(true);
    const second = await t.upload(kb, [{ name: "b.txt", data: "b".repeat(600) }, { name: "c.txt", data: "c".repeat(300) }], { maxKbBytes: 1000 });
    expect(second.files.map((f) => (f.ok ? "ok" : f.code))).toEqual(["KNOWLEDGE_QUOTA_EXCEEDED", "ok"]);
  });

  it("duplicates: same request, later request, other KB", async () => {
    const kb = await t.newKb();
    const same = await t.upload(kb, [
      { name: "one.md", data: fixture("guide.md") },
      { name: "two.md", data: fixture("guide.md") },
    ]);
    expect(same.files[0]!.ok).toBe(true);
    expect(same.files[1]).toMatchObject({ ok: false, code: "FILE_DUPLICATE", name: "two.md" });
    const later = await t.upload(kb, [{ name: "three.md", data: fixture("guide.md") }]);
    expect(later.files[0]).toMatchObject({ ok: false, code: "FILE_DUPLICATE", existingFileId: same.files[0]!.ok ? same.files[0]!.file.id : "" });
    expect(await t.db.knowledgeFile.count({ where: { knowledgeId: kb } })).toBe(1);
    expect(readdirSync(path.join(t.dataDir, "files", kb))).toHaveLength(1);
    const other = await t.newKb();
    expect((await t.upload(other, [{ name: "four.md", data: fixture("guide.md") }])).files[0]!.ok).toBe(true);
  });

  it("non-multipart, malformed and empty bodies are INVALID_PARAMS", async () => {
    const kb = await t.newKb();
    const opts = { knowledgeId: kb, userId: t.userId, db: t.db, dataDir: t.dataDir };
    expect((await rejection(receiveUpload(req(JSON.stringify({ a: 1 }), { "content-type": "application/json" }), opts))).code).toBe("INVALID_PARAMS");
    expect((await rejection(receiveUpload(req("garbage without boundaries", { "content-type": "multipart/form-data; boundary=zzz" }), opts))).code).toBe("INVALID_PARAMS");
    const cut = "--zzz\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.txt\"\r\n\r\nhello";
    expect((await rejection(receiveUpload(req(cut, { "content-type": "multipart/form-data; boundary=zzz" }), opts))).code).toBe("INVALID_PARAMS");
    const form = new FormData();
    form.append("note", "no files here");
    expect((await rejection(receiveUpload(new Request("http://localhost/x", { method: "POST", body: form }), opts))).message).toMatch(/no files/);
    expect(readdirSync(path.join(t.dataDir, "files", kb))).toEqual([]);
  });

  it("UTF-8 file names from multipart headers survive", async () => {
    const kb = await t.newKb();
    const res = await t.upload(kb, [{ name: "季度 报告\u202e.md", data: "# 标题\n\n内容" }]);
    expect(res.files[0]).toMatchObject({ ok: true, file: { name: "季度 报告.md", fileType: "md", status: "queued", embeddingStatus: "pending" } });
  });
});
