// Cross-language questions (issue 21): each file's language is recorded at ingestion; with a chat
// model configured, a question in a language no searchable file shares is translated into the
// documents' language for retrieval, and the retrieval summary says so. The model is the local
// OpenAI-compatible test server; it is scripted to return the translation a real model would.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "../../support/fake-openai-server";
import { readSse } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

async function drain() {
  const { runPendingJobs } = await import("@/lib/ingestion/runner");
  const { getDb } = await import("@/lib/db/client");
  await runPendingJobs({ db: await getDb() });
}

const GUIDE = `# Zephyr release plan

Zephyr launches on 14 March 2027. The launch date was agreed by the steering group.

## Approvals

Every release needs two approvals from the platform team before it ships.
`;
const QUESTION = "Zephyr 的发布日期是哪天？";
const TRANSLATION = "What is the release date of Zephyr?";

describe("translated retrieval for questions in another language than the documents", () => {
  let app: App;
  let model: FakeOpenAI;
  let c: Client;
  let kb: string;
  let fileId: string;
  const ask = (body: Record<string, unknown>) => c.request("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, body);

  beforeAll(async () => {
    model = await startFakeOpenAI();
    app = await startIntegrationApp({ AI_CHAT_MODEL: "qwen-plus", AI_CHAT_BASE_URL: model.baseUrl });
    c = new Client(app.baseUrl);
    kb = (await c.json<{ id: string }>("POST", "/v1/knowledges", { name: "zephyr" })).data.id;
    const form = new FormData();
    form.append("files", new Blob([GUIDE], { type: "text/markdown" }), "zephyr.md");
    const up = await c.json<{ files: Array<{ file: { id: string } }> }>("POST", `/v1/knowledges/${kb}/files`, form);
    fileId = up.data.files[0]!.file.id;
    await drain();
  });
  afterAll(async () => {
    await app.close();
    await model.close();
  });
  beforeEach(() => model.reset());

  it("records the file's language at ingestion", async () => {
    const { getDb } = await import("@/lib/db/client");
    const row = await (await getDb()).knowledgeFile.findUniqueOrThrow({ where: { id: fileId } });
    expect(row.status).toBe("success");
    expect(row.language).toBe("en");
  });

  it("translates a Chinese question for English documents, finds the passage and says so", async () => {
    model.script({ kind: "json", body: { choices: [{ message: { role: "assistant", content: TRANSLATION }, finish_reason: "stop" }] } });
    const { events } = await readSse(await ask({ message: QUESTION, answer_mode: "references_only" }));
    const done = events.find((e) => e.event === "retrieval" && e.data.status === "done")!;
    expect(done.data.translated_queries).toEqual([{ language: "en", query: TRANSLATION }]);
    const refs = events.find((e) => e.event === "references")!.data.items as Array<{ quote: string; score: number }>;
    expect(refs[0]!.quote).toContain("14 March 2027");
    expect(refs[0]!.score).toBeGreaterThanOrEqual(0.5);
    // One model call, the translation, asked for English and told not to answer.
    const calls = model.requests.filter((r) => r.endpoint === "chat");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body.messages[0].content).toContain("into English");
    expect(calls[0]!.body.messages.at(-1).content).toBe(QUESTION);
  });

  it("does not translate a question already in the documents' language", async () => {
    const { events } = await readSse(await ask({ message: "When does Zephyr launch?", answer_mode: "references_only" }));
    const done = events.find((e) => e.event === "retrieval" && e.data.status === "done")!;
    expect(done.data.translated_queries).toBeUndefined();
    expect(done.data.hit_count).toBeGreaterThan(0);
    expect(model.requests.filter((r) => r.endpoint === "chat")).toHaveLength(0);
  });

  it("keeps the original question's result when the translation fails", async () => {
    model.script({ kind: "fail", status: 500 });
    const { events } = await readSse(await ask({ message: QUESTION, answer_mode: "references_only" }));
    const done = events.find((e) => e.event === "retrieval" && e.data.status === "done")!;
    expect(done.data.translated_queries).toBeUndefined();
    expect(events.at(-1)!.event).toBe("done");
  });
});
