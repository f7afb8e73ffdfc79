// "Generate questions from this KB" (issue 21) with the local test model: passages are sampled
// from the KB's searchable files, each drafted question is linked to its passage, nothing is
// saved until the owner saves the (edited) draft; without a chat model the page cannot offer it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "@/e2e/support/fake-openai-server";
import { getDb } from "@/lib/db/client";
import { seedIndexedFile } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

const PASSAGES = [
  "Shipment 123405 was dispatched from the Rotterdam warehouse on 4 March by rail, carrier Baltic Freight, with 40 pallets.",
  "Shipment 123406 was dispatched from the Hamburg warehouse on 6 March by truck, carrier NordTrans, with 12 pallets.",
  "Delays: two shipments were held at customs for inspection; the carriers were notified by e-mail the same day.",
  "short",
];

describe("evaluation question drafting", () => {
  let app: Awaited<ReturnType<typeof startIntegrationApp>>;
  let fake: FakeOpenAI;
  let owner: Client;
  let viewer: Client;
  let kb: string;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    app = await startIntegrationApp({ AUTH_MODE: "password", AI_CHAT_MODEL: "qwen-test", AI_CHAT_BASE_URL: fake.baseUrl, AI_CHAT_API_KEY: "k" });
    owner = new Client(app.baseUrl);
    viewer = new Client(app.baseUrl);
    await owner.json("POST", "/v1/auth/sign-up", { email: "own@gen.test", password: "password-o" });
    await viewer.json("POST", "/v1/auth/sign-up", { email: "view@gen.test", password: "password-v" });
    kb = (await owner.json<{ id: string }>("POST", "/v1/knowledges", { name: "gen" })).data.id;
    await owner.json("POST", `/v1/knowledges/${kb}/members`, { email: "view@gen.test", role: "viewer" });
    await seedIndexedFile(kb, "shipments.pdf", PASSAGES.map((content, i) => ({ content, pageStart: i + 1 })));
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  it("drafts one question per sampled passage, each linked to its passage", async () => {
    expect((await owner.json<{ can_generate: boolean }>("GET", `/v1/knowledges/${kb}/evaluation`)).data.can_generate).toBe(true);
    const before = await (await getDb()).evaluationSet.count();
    const r = await owner.json<{ questions: Array<{ question: string; chunk_id: string; expected_file: string; expected_page: number; expected_text: string; passage: string }> }>(
      "POST",
      `/v1/knowledges/${kb}/evaluation/sets/generate`,
      { count: 5 },
    );
    expect(r.code).toBe(0);
    // The 5-character passage is too short to ask about: three drafts.
    expect(r.data.questions).toHaveLength(3);
    const chunks = await (await getDb()).chunk.findMany({ where: { knowledgeId: kb } });
    for (const q of r.data.questions) {
      const c = chunks.find((x) => x.id === q.chunk_id)!;
      expect(c).toBeDefined();
      expect(q).toMatchObject({ expected_file: "shipments.pdf", expected_page: c.pageStart, passage: c.content });
      expect(c.content.startsWith(q.expected_text)).toBe(true);
      // The test model builds its question from the passage it was given.
      expect(q.question).toBe(`What does the document say about "${c.content.split(/\s+/).slice(0, 6).join(" ")}"?`);
    }
    const writerCalls = fake.requests.filter((x) => x.endpoint === "chat" && JSON.stringify(x.body.messages).includes("You write evaluation questions"));
    expect(writerCalls).toHaveLength(3);
    // Nothing is stored until the owner saves the draft.
    expect(await (await getDb()).evaluationSet.count()).toBe(before);
    const saved = await owner.json<{ question_count: number }>("POST", `/v1/knowledges/${kb}/evaluation/sets`, {
      name: "drafted",
      questions: r.data.questions.map(({ passage: _p, ...q }) => q),
    });
    expect(saved.data.question_count).toBe(3);
  });

  it("is for owners and editors only, and bounded", async () => {
    expect((await viewer.json("POST", `/v1/knowledges/${kb}/evaluation/sets/generate`, { count: 2 })).code).toBe("FORBIDDEN");
    expect((await owner.json("POST", `/v1/knowledges/${kb}/evaluation/sets/generate`, { count: 500 })).code).toBe("INVALID_PARAMS");
  });

  it("says the model failed when it does", async () => {
    fake.script({ kind: "fail", status: 500 });
    expect((await owner.json("POST", `/v1/knowledges/${kb}/evaluation/sets/generate`, { count: 1 })).code).toBe("MODEL_UNAVAILABLE");
  });
});
