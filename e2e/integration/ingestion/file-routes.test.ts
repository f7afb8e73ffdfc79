import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;
const FIXTURES = path.resolve(import.meta.dirname, "../../fixtures");

async function drain() {
  const { runPendingJobs } = await import("@/lib/ingestion/runner");
  const { getDb } = await import("@/lib/db/client");
  await runPendingJobs({ db: await getDb() });
}

// The file routes over HTTP: upload → parse-job SSE → content for the viewer → original as a
// download that a browser can never run as a page of this origin.
describe("file routes", () => {
  let app: App;
  let c: Client;
  let kb: string;
  let fileId: string;

  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "local" });
    c = new Client(app.baseUrl);
    kb = (await c.json<{ id: string }>("POST", "/v1/knowledges", { name: "files" })).data.id;
  });
  afterAll(() => app.close());

  it("uploads, streams progress to the end, and serves the indexed content", async () => {
    const form = new FormData();
    const html = '<html><body><h1>Title</h1><p>Hello <b>world</b></p><script>alert(1)</script></body></html>';
    form.append("files", new Blob([html], { type: "text/html" }), "../../x<script>.html");
    const up = await c.json<{ files: Array<{ ok: boolean; file: { id: string; name: string } }> }>("POST", `/v1/knowledges/${kb}/files`, form);
    expect(up.code).toBe(0);
    fileId = up.data.files[0]!.file.id;
    expect(up.data.files[0]!.file.name).toBe("x<script>.html");
    // Drain the queue here rather than leave a process-wide runner behind for later test files.
    await drain();

    const res = await c.request("GET", `/v1/knowledges/${kb}/files/${fileId}/parse-job/events`);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await res.text();
    expect(text).toMatch(/event: done\ndata: \{"status":"success"/);

    const content = await c.json<{ file: { status: string }; chunks: Array<{ content: string; heading_path: string }> }>(
      "GET",
      `/v1/knowledges/${kb}/files/${fileId}/content`,
    );
    expect(content.data.file.status).toBe("success");
    const all = content.data.chunks.map((ch) => ch.content).join("\n");
    expect(all).toContain("Hello world");
    expect(all).not.toContain("alert(1)");
    expect(content.data.chunks[0]!.heading_path).toBe("Title");
  });

  it("serves the original as an attachment, never as active content", async () => {
    const res = await c.request("GET", `/v1/knowledges/${kb}/files/${fileId}/original`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    expect(await res.text()).toContain("<script>alert(1)</script>");
  });

  it("reparses a file and deletes it with its chunks and original", async () => {
    const r = await c.json<{ status: string }>("POST", `/v1/knowledges/${kb}/files/${fileId}/reparse`);
    expect(r.code).toBe(0);
    await drain();
    await expect
      .poll(async () => (await c.json<{ status: string }>("GET", `/v1/knowledges/${kb}/files/${fileId}`)).data.status, { timeout: 30_000 })
      .toBe("success");
    const del = await c.json<{ deleted: boolean }>("DELETE", `/v1/knowledges/${kb}/files/${fileId}`);
    expect(del.data.deleted).toBe(true);
    expect((await c.json("GET", `/v1/knowledges/${kb}/files/${fileId}/content`)).code).toBe("FILE_NOT_FOUND");
    expect((await c.json("GET", `/v1/knowledges/${kb}/files/${fileId}/original`)).code).toBe("FILE_NOT_FOUND");
  });
});

describe("upload limits over HTTP", () => {
  it("answers FILE_TOO_LARGE with 200 for a single oversized file and 413 for a body over the hard cap", async () => {
    const small = await startIntegrationApp({ AUTH_MODE: "local", MAX_FILE_BYTES: "1024", MAX_FILES_PER_REQUEST: "1" });
    try {
      const sc = new Client(small.baseUrl);
      const k = (await sc.json<{ id: string }>("POST", "/v1/knowledges", { name: "tiny" })).data.id;
      const one = new FormData();
      one.append("files", new Blob(["x".repeat(2048)], { type: "text/plain" }), "big.txt");
      const r1 = await sc.json("POST", `/v1/knowledges/${k}/files`, one);
      expect(r1.status).toBe(200);
      expect(r1.code).toBe("FILE_TOO_LARGE");
      const huge = new FormData();
      huge.append("files", new Blob([readFileSync(path.join(FIXTURES, "zh-handbook.pdf")), "x".repeat(2 * 1024 * 1024)]), "huge.pdf");
      const r2 = await sc.json("POST", `/v1/knowledges/${k}/files`, huge);
      expect(r2.status).toBe(413);
      expect(r2.code).toBe("PAYLOAD_TOO_LARGE");
      const list = await sc.json<{ items: unknown[] }>("GET", `/v1/knowledges/${k}/files`);
      expect(list.data.items).toHaveLength(0);
    } finally {
      await small.close();
    }
  });
});
