import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSse, SAMPLE_CHUNKS, seedIndexedFile } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

// Two users in password mode: every route that takes an id answers another user's id exactly
// as it answers a missing one, and nothing of A's changes.
describe("isolation between users on every route", () => {
  let app: App;
  let a: Client;
  let b: Client;
  let kb: string;
  let file: string;
  let conv: string;
  let kbB: string;

  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "password" });
    a = new Client(app.baseUrl);
    b = new Client(app.baseUrl);
    await a.signUp({ email: "ia@x.test", password: "password-a" });
    await b.signUp({ email: "ib@x.test", password: "password-b" });
    kb = (await a.json<{ id: string }>("POST", "/v1/knowledges", { name: "A" })).data.id;
    kbB = (await b.json<{ id: string }>("POST", "/v1/knowledges", { name: "B" })).data.id;
    file = await seedIndexedFile(kb, "a-secret.pdf", SAMPLE_CHUNKS);
    const { events } = await readSse(await a.request("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, { message: "智慧城市政策的实施范围" }));
    conv = events[0]!.data.conversation_id as string;
  });
  afterAll(() => app.close());

  it("answers KNOWLEDGE_NOT_FOUND for A's KB on every KB-scoped route", async () => {
    const missing = "00000000-0000-0000-0000-000000000000";
    for (const target of [kb, missing]) {
      const form = new FormData();
      form.append("files", new Blob(["hello"], { type: "text/plain" }), "x.txt");
      const routes: Array<[string, string, unknown?]> = [
        ["GET", `/v1/knowledges/${target}`],
        ["PATCH", `/v1/knowledges/${target}`, { name: "x" }],
        ["DELETE", `/v1/knowledges/${target}`],
        ["GET", `/v1/knowledges/${target}/files`],
        ["POST", `/v1/knowledges/${target}/files`, form],
        ["GET", `/v1/knowledges/${target}/files/${file}`],
        ["DELETE", `/v1/knowledges/${target}/files/${file}`],
        ["POST", `/v1/knowledges/${target}/files/${file}/reparse`],
        ["GET", `/v1/knowledges/${target}/files/${file}/parse-job/events`],
        ["GET", `/v1/knowledges/${target}/files/${file}/content`],
        ["GET", `/v1/knowledges/${target}/files/${file}/original`],
        ["GET", `/v1/knowledges/${target}/assistant/bootstrap`],
        ["POST", `/v1/knowledges/${target}/assistant/chat/stream`, { message: "hi" }],
        ["GET", `/v1/knowledges/${target}/assistant/conversations`],
        ["GET", `/v1/knowledges/${target}/assistant/conversations/${conv}/messages`],
        ["DELETE", `/v1/knowledges/${target}/assistant/conversations/${conv}`],
        ["GET", `/v1/knowledges/${target}/assistant/conversations/${conv}/external-knowledge-refs`],
        ["POST", `/v1/knowledges/${target}/assistant/conversations/${conv}/external-knowledge-refs/remove`, { ref: { provider: "x", target_type: "document", id: "1" } }],
      ];
      for (const [method, path, body] of routes) {
        const r = await b.json(method, path, body);
        expect(r.code, `${method} ${path}`).toBe("KNOWLEDGE_NOT_FOUND");
      }
    }
  });

  it("answers FILE_NOT_FOUND / CONVERSATION_NOT_FOUND for A's ids under B's own KB", async () => {
    for (const [method, path] of [
      ["GET", `/v1/knowledges/${kbB}/files/${file}`],
      ["DELETE", `/v1/knowledges/${kbB}/files/${file}`],
      ["POST", `/v1/knowledges/${kbB}/files/${file}/reparse`],
      ["GET", `/v1/knowledges/${kbB}/files/${file}/content`],
      ["GET", `/v1/knowledges/${kbB}/files/${file}/original`],
      ["GET", `/v1/knowledges/${kbB}/files/${file}/parse-job/events`],
    ] as const) {
      expect((await b.json(method, path)).code, `${method} ${path}`).toBe("FILE_NOT_FOUND");
    }
    for (const [method, path] of [
      ["GET", `/v1/knowledges/${kbB}/assistant/conversations/${conv}/messages`],
      ["DELETE", `/v1/knowledges/${kbB}/assistant/conversations/${conv}`],
      ["GET", `/v1/knowledges/${kbB}/assistant/conversations/${conv}/external-knowledge-refs`],
    ] as const) {
      expect((await b.json(method, path)).code, `${method} ${path}`).toBe("CONVERSATION_NOT_FOUND");
    }
    // B's KB has no files: its chat refuses before looking at the foreign ids.
    await seedIndexedFile(kbB, "b.md", [{ content: "B 的资料" }]);
    expect((await b.json("POST", `/v1/knowledges/${kbB}/assistant/chat/stream`, { message: "hi", file_ids: [file] })).code).toBe("FILE_NOT_IN_KNOWLEDGE");
    expect((await b.json("POST", `/v1/knowledges/${kbB}/assistant/chat/stream`, { message: "hi", conversation_id: conv })).code).toBe("CONVERSATION_NOT_FOUND");
    const convs = await b.json<{ items: { id: string }[] }>("GET", `/v1/knowledges/${kbB}/assistant/conversations`);
    expect(convs.data.items.map((c) => c.id)).not.toContain(conv);
  });

  it("left everything of A's intact", async () => {
    expect((await a.json<{ name: string }>("GET", `/v1/knowledges/${kb}`)).data.name).toBe("A");
    expect((await a.json("GET", `/v1/knowledges/${kb}/files/${file}`)).code).toBe(0);
    const msgs = await a.json<{ items: unknown[] }>("GET", `/v1/knowledges/${kb}/assistant/conversations/${conv}/messages`);
    expect(msgs.data.items).toHaveLength(2);
  });
});
