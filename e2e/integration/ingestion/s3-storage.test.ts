import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/client";
import { resetEnvForTests } from "@/lib/env";
import { sweepOrphanOriginals } from "@/lib/ingestion/orphan-sweep";
import { runPendingJobs } from "@/lib/ingestion/runner";
import { getStorage, resetStorageForTests } from "@/lib/ingestion/storage";
import { S3Storage } from "@/lib/ingestion/storage-s3";
import { startCuttingProxy, startTestS3, type TestS3 } from "../../support/s3-server";
import { Client, startIntegrationApp } from "../../support/test-env";

// Originals in S3-compatible storage (STORAGE=s3, issue 24) over HTTP, against a real S3 server
// on loopback (s3rver): upload → object in the bucket → job parses it from there → download
// streams it back → delete removes it. Faults: the store cut off mid-upload, an object deleted
// behind the app's back, refused credentials and an unreachable endpoint at start, orphans.
// Runs on PGlite and on PostgreSQL (TEST_DATABASE_URL) like the rest of the project.

type App = Awaited<ReturnType<typeof startIntegrationApp>>;
type UploadReply = { files: Array<{ ok: boolean; code?: string; message?: string; file?: { id: string } }> };

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

function form(name: string, data: string | Buffer): FormData {
  const f = new FormData();
  f.append("files", new Blob([data as BlobPart]), name);
  return f;
}

async function drain() {
  await runPendingJobs({ db: await getDb(), pollMs: 20 });
}

function leftoverTemps(dataDir: string): string[] {
  const root = path.join(dataDir, "files");
  try {
    return readdirSync(root, { recursive: true }).map(String).filter((n) => path.basename(n).startsWith(".tmp-"));
  } catch {
    return [];
  }
}

describe("originals in S3-compatible storage", () => {
  let s3: TestS3;
  let app: App;
  let c: Client;
  let kb: string;

  beforeAll(async () => {
    s3 = await startTestS3();
    resetStorageForTests();
    app = await startIntegrationApp({ AUTH_MODE: "local", ...s3.env });
    c = new Client(app.baseUrl);
    kb = (await c.json<{ id: string }>("POST", "/v1/knowledges", { name: "s3" })).data.id;
  });
  afterAll(async () => {
    await app?.close();
    resetStorageForTests(); // the app's bucket connections, or the S3 server waits for them
    await s3?.close();
    for (const k of Object.keys(s3?.env ?? {})) delete process.env[k];
    resetEnvForTests();
    resetStorageForTests();
  });

  it("stores the upload in the bucket, parses it from there, streams it back and deletes it", async () => {
    const text = "对象存储中的原件。Originals live in the bucket, not on the instance's disk.\n".repeat(200);
    const up = await c.json<UploadReply>("POST", `/v1/knowledges/${kb}/files`, form("bucket.txt", text));
    expect(up.data.files[0]!.ok).toBe(true);
    const fileId = up.data.files[0]!.file!.id;
    const key = `originals/${kb}/${fileId}`;
    expect(await s3.keys()).toEqual([key]);
    expect(sha(await s3.get(key))).toBe(sha(Buffer.from(text)));
    // Nothing of it stays on this instance's disk.
    expect(readdirSync(path.join(app.dataDir, "files", kb))).toEqual([]);

    await drain();
    const content = await c.json<{ file: { status: string; chunk_count: number } }>("GET", `/v1/knowledges/${kb}/files/${fileId}/content`);
    expect(content.data.file.status).toBe("success");
    expect(content.data.file.chunk_count).toBeGreaterThan(0);

    const res = await c.request("GET", `/v1/knowledges/${kb}/files/${fileId}/original`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="bucket.txt"/);
    expect(res.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(sha(new Uint8Array(await res.arrayBuffer()))).toBe(sha(Buffer.from(text)));

    const del = await c.json("DELETE", `/v1/knowledges/${kb}/files/${fileId}`);
    expect(del.code).toBe(0);
    expect(await s3.keys()).toEqual([]);
  });

  it("an object deleted behind the app's back: download answers ORIGINAL_NOT_FOUND and the file is marked failed", async () => {
    const up = await c.json<UploadReply>("POST", `/v1/knowledges/${kb}/files`, form("vanishing.md", "# Vanishing\n\nThis original will be deleted from the bucket."));
    const fileId = up.data.files[0]!.file!.id;
    await drain();
    await s3.remove(`originals/${kb}/${fileId}`);

    const res = await c.request("GET", `/v1/knowledges/${kb}/files/${fileId}/original`);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    const body = (await res.json()) as { code: string; msg: string };
    expect(body.code).toBe("ORIGINAL_NOT_FOUND");
    expect(body.msg).toMatch(/missing from storage/);
    const file = await c.json<{ status: string; error_code: string | null; error_message: string | null }>("GET", `/v1/knowledges/${kb}/files/${fileId}`);
    expect(file.data.status).toBe("failed");
    expect(file.data.error_code).toBe("ORIGINAL_NOT_FOUND");
    expect(file.data.error_message).toMatch(/upload it again/);

    // A reparse of it fails with the same reason instead of a generic error.
    expect((await c.json("POST", `/v1/knowledges/${kb}/files/${fileId}/reparse`)).code).toBe(0);
    await drain();
    const again = await c.json<{ error_code: string | null; error_message: string | null }>("GET", `/v1/knowledges/${kb}/files/${fileId}`);
    expect(again.data.error_code).toBe("ORIGINAL_NOT_FOUND");
    expect(again.data.error_message).toMatch(/missing from storage/);
    await c.json("DELETE", `/v1/knowledges/${kb}/files/${fileId}`);
  });

  it("the store cut off in the middle of an upload: STORAGE_UNAVAILABLE, no row, no object, no temp file", async () => {
    const proxy = await startCuttingProxy(s3.port, 64 * 1024);
    process.env.S3_ENDPOINT = proxy.endpoint;
    resetEnvForTests();
    resetStorageForTests();
    try {
      const big = "中断的上传不会留下任何东西。An upload cut off by the store leaves nothing behind.\n".repeat(12_000); // ~1 MB
      const up = await c.json<UploadReply>("POST", `/v1/knowledges/${kb}/files`, form("cut.txt", big));
      // The only file was refused, so its code is the envelope's too.
      expect(up.code).toBe("STORAGE_UNAVAILABLE");
      expect(up.data.files[0]).toMatchObject({ ok: false, code: "STORAGE_UNAVAILABLE" });
      expect(up.data.files[0]!.message).toMatch(/nothing was saved/);
      const list = await c.json<{ items: unknown[] }>("GET", `/v1/knowledges/${kb}/files`);
      expect(list.data.items).toEqual([]);
    } finally {
      process.env.S3_ENDPOINT = s3.endpoint;
      resetEnvForTests();
      resetStorageForTests();
      await proxy.close();
    }
    expect(await s3.keys()).toEqual([]);
    expect(leftoverTemps(app.dataDir)).toEqual([]);
  });

  it("deleting a knowledge base removes its objects", async () => {
    const other = (await c.json<{ id: string }>("POST", "/v1/knowledges", { name: "doomed" })).data.id;
    await c.json<UploadReply>("POST", `/v1/knowledges/${other}/files`, form("a.txt", "first original of the doomed KB"));
    await c.json<UploadReply>("POST", `/v1/knowledges/${other}/files`, form("b.txt", "second original of the doomed KB"));
    expect(await s3.keys(`originals/${other}/`)).toHaveLength(2);
    expect((await c.json("DELETE", `/v1/knowledges/${other}`)).code).toBe(0);
    expect(await s3.keys(`originals/${other}/`)).toEqual([]);
  });

  it("the sweep removes originals without a row (older than the grace period) and keeps the rest", async () => {
    const up = await c.json<UploadReply>("POST", `/v1/knowledges/${kb}/files`, form("kept.txt", "this original has its row"));
    const keptKey = `originals/${kb}/${up.data.files[0]!.file!.id}`;
    const orphan = `originals/${kb}/00000000-dead-4000-8000-000000000000`;
    await s3.put(orphan, "written by an instance that crashed before its row");
    await s3.put("elsewhere/not-ours", "outside the prefix");
    const storage = await getStorage();
    // Within the grace period nothing is touched (another instance may be mid-upload).
    expect((await sweepOrphanOriginals(await getDb(), storage, { olderThanMs: 3_600_000 })).removed).toBe(0);
    const r = await sweepOrphanOriginals(await getDb(), storage, { olderThanMs: 0 });
    expect(r.removed).toBe(1);
    const keys = await s3.keys();
    expect(keys).toContain(keptKey);
    expect(keys).toContain("elsewhere/not-ours");
    expect(keys).not.toContain(orphan);
  });

  it("refuses to start on refused credentials or an unreachable endpoint, saying which", async () => {
    const base = { region: "us-east-1", bucket: s3.bucket, prefix: "originals/", forcePathStyle: true };
    const badKey = new S3Storage({ ...base, endpoint: s3.endpoint, accessKeyId: "WRONG", secretAccessKey: "WRONG" });
    await expect(badKey.check()).rejects.toThrow(/STORAGE=s3: cannot use bucket "ka-test" at http:\/\/127\.0\.0\.1:\d+: the credentials were refused \(HTTP 403/);
    const noBucket = new S3Storage({ ...base, bucket: "no-such-bucket", endpoint: s3.endpoint, accessKeyId: "S3RVER", secretAccessKey: "S3RVER" });
    await expect(noBucket.check()).rejects.toThrow(/no-such-bucket.*it does not exist/);
    const closed = await startCuttingProxy(1, 0);
    const endpoint = closed.endpoint;
    await closed.close(); // nothing listens there any more
    const dead = new S3Storage({ ...base, endpoint, accessKeyId: "S3RVER", secretAccessKey: "S3RVER" });
    await expect(dead.check()).rejects.toThrow(/cannot use bucket "ka-test" at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
  });
});
