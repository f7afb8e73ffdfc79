import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { request as httpRequest, type ClientRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "../../support/fake-openai-server";
import { readSse } from "../../support/seed";
import { killHard, startServeApp } from "../../support/serve-app-process";
import { Client } from "../../support/test-env";

// Issue 16, items 5 and 11: a real server process is killed with SIGKILL while it streams an
// answer and while an upload is half received, then started again on the same data directory.
// The partial answer must be there, marked interrupted; the conversation must take the next
// question at once (not CONVERSATION_BUSY for minutes); the upload's temp file must be gone.
const startServer = (dataDir: string, modelUrl: string) =>
  startServeApp({ DATA_DIR: dataDir, AUTH_MODE: "local", AI_CHAT_MODEL: "qwen-test", AI_CHAT_BASE_URL: modelUrl, AI_CHAT_API_KEY: "sk-kill-test" });

/** Sends the head and the first bytes of a multipart upload, then holds the request open. */
function halfUpload(baseUrl: string, kb: string): ClientRequest {
  const boundary = "----ka-kill-test";
  const url = new URL(`/v1/knowledges/${kb}/files`, baseUrl);
  const req = httpRequest({
    host: url.hostname,
    port: url.port,
    method: "POST",
    path: url.pathname,
    headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(10 * 1024 * 1024) },
  });
  req.on("error", () => {});
  req.write(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`);
  req.write("未写完的上传内容。".repeat(20_000));
  return req;
}

const tempFiles = (dataDir: string, kb: string) => {
  const dir = path.join(dataDir, "files", kb);
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith(".tmp-")) : [];
};

describe.skipIf(!!process.env.TEST_DATABASE_URL)("a server killed mid-answer and mid-upload", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "ka-stream-kill-"));
  let model: FakeOpenAI;
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child) await killHard(child);
    await model?.close();
  });

  it("keeps the partial answer as interrupted, frees the conversation and sweeps the temp file", async () => {
    model = await startFakeOpenAI({ apiKey: "sk-kill-test" });
    let server = await startServer(dataDir, model.baseUrl);
    child = server.child;
    let c = new Client(server.url);
    const kb = (await c.json<{ id: string }>("POST", "/v1/knowledges", { name: "kill" })).data.id;
    const form = new FormData();
    form.append("files", new Blob(["# 休假制度\n\n正式员工每年享有十五天带薪年假，年假可以分次使用。"], { type: "text/markdown" }), "leave.md");
    expect((await c.json("POST", `/v1/knowledges/${kb}/files`, form)).code).toBe(0);
    await expect
      .poll(async () => (await c.json<{ ready_file_count: number }>("GET", `/v1/knowledges/${kb}`)).data.ready_file_count, { timeout: 60_000, interval: 250 })
      .toBe(1);

    // A long, slow answer: 400 tokens, 50 ms apart.
    const tokens = Array.from({ length: 400 }, (_, i) => `第${i}句。`);
    model.script({ kind: "stream", tokens, tokenMs: 50 });
    const controller = new AbortController();
    const res = await fetch(`${server.url}/v1/knowledges/${kb}/assistant/chat/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "年假有几天？", answer_mode: "creative" }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const conversationId = /"conversation_id":"([^"]+)"/.exec(first)![1]!;
    const messagesUrl = `/v1/knowledges/${kb}/assistant/conversations/${conversationId}/messages`;
    type Msg = { role: string; content: string; finish_reason: string | null };
    // The answer reaches the database while it streams.
    await expect
      .poll(async () => (await c.json<{ items: Msg[] }>("GET", messagesUrl)).data.items.find((m) => m.role === "assistant")?.content.length ?? 0, {
        timeout: 30_000,
        interval: 200,
      })
      .toBeGreaterThan(0);
    const upload = halfUpload(server.url, kb);
    await expect.poll(() => tempFiles(dataDir, kb).length, { timeout: 30_000, interval: 100 }).toBe(1);

    await killHard(server.child);
    controller.abort();
    upload.destroy();
    // The crash leaves the temp file and a conversation held by a dead process.
    expect(tempFiles(dataDir, kb)).toHaveLength(1);

    server = await startServer(dataDir, model.baseUrl);
    child = server.child;
    c = new Client(server.url);
    expect(tempFiles(dataDir, kb)).toHaveLength(0);
    const after = (await c.json<{ items: Msg[] }>("GET", messagesUrl)).data.items;
    expect(after.map((m) => m.role)).toEqual(["user", "assistant"]);
    const saved = after[1]!;
    expect(saved.finish_reason).toBe("interrupted");
    expect(saved.content.length).toBeGreaterThan(0);
    // What was saved is the beginning of what the model said.
    expect(tokens.join("")).toContain(saved.content.replace(/^[\s\S]*?：\n\n/, "").slice(0, 8));
    // The next question in that conversation is answered right away.
    model.reset();
    const next = await c.request("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, { message: "年假可以分次使用吗？", answer_mode: "creative", conversation_id: conversationId });
    expect(next.headers.get("content-type")).toMatch(/text\/event-stream/);
    const { events } = await readSse(next);
    expect(events.at(-1)!.event).toBe("done");
  }, 240_000);
});
