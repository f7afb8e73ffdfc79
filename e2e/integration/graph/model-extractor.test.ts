import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "@/e2e/support/fake-openai-server";
import { resetEnvForTests } from "@/lib/env";
import { relationSupports } from "@/lib/graph/query";
import { openTestEnv, type TestEnv } from "../ingestion/helpers";

// The model extractor through the real chat client against the local OpenAI-compatible test
// server: a JSON-schema request per chunk with thinking off; a valid answer adds its entities and
// relations, an invalid or failed one is skipped (logged) without failing the file; tokens summed.
const completion = (content: string, total: number) => ({
  id: "x",
  object: "chat.completion",
  created: 0,
  model: "qwen-test",
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
  usage: { prompt_tokens: total - 5, completion_tokens: 5, total_tokens: total },
});

describe("model extractor", () => {
  let t: TestEnv;
  let fake: FakeOpenAI;
  const saved = { ...process.env };
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    Object.assign(process.env, { AI_CHAT_MODEL: "qwen-test", AI_CHAT_BASE_URL: fake.baseUrl, AI_CHAT_API_KEY: "k", GRAPH_MODEL_CONCURRENCY: "2" });
    resetEnvForTests();
    t = await openTestEnv();
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
    process.env = saved;
    resetEnvForTests();
  });

  it("adds a valid answer's entities and relations, skips invalid ones, counts tokens", async () => {
    const kb = await t.newKb("model");
    await t.db.knowledge.update({ where: { id: kb }, data: { graphModelEnabled: true } });
    const section = (n: number) => `## 第${n}节\n\n` + `云笺由星河科技有限公司开发，第${n}节介绍它的功能。`.repeat(25);
    await t.upload(kb, [{ name: "model.md", data: [1, 2, 3].map(section).join("\n\n") }]);
    const valid = JSON.stringify({
      entities: [{ name: "星河科技有限公司", type: "organization", description: "云笺的开发商" }],
      relations: [{ source: "星河科技有限公司", target: "云笺", relation: "开发", description: "星河科技有限公司开发了云笺" }],
    });
    fake.script({ kind: "json", body: completion(valid, 42) });
    fake.script({ kind: "json", body: completion("Sorry, I cannot produce JSON.", 10) });
    fake.script({ kind: "fail", status: 500 });
    const before = fake.requests.length;
    await t.runJobs();

    const file = await t.db.knowledgeFile.findFirstOrThrow({ where: { knowledgeId: kb } });
    expect(file.chunkCount).toBe(3);
    expect(file).toMatchObject({ status: "success", graphStatus: "success", graphTokens: 52 });
    expect(file.graphErrorMessage).toContain("2 of 3 passages");
    const calls = fake.requests.slice(before).filter((r) => r.endpoint === "chat");
    expect(calls).toHaveLength(3);
    for (const c of calls) {
      expect(c.body.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "knowledge_graph" } });
      expect(c.body.enable_thinking).toBe(false);
      expect(c.body.stream).toBeFalsy();
    }
    const dev = await t.db.graphEntity.findFirstOrThrow({ where: { knowledgeId: kb, normName: "星河科技有限公司" } });
    expect(dev.description).toBe("云笺的开发商");
    const rel = await t.db.graphRelation.findFirstOrThrow({ where: { knowledgeId: kb, relation: "开发" }, include: { source: true, target: true } });
    expect([rel.source.name, rel.target.name]).toEqual(["星河科技有限公司", "云笺"]);
    const passages = await relationSupports(t.db, { knowledgeId: kb, relationIds: [String(rel.id)], perRelation: 10 });
    expect(passages.get(String(rel.id))).toHaveLength(1);
    expect(passages.get(String(rel.id))![0]!.quote).toContain("星河科技有限公司");
    // The offline extractor ran as well: its co-occurrence relation is there for every chunk.
    const co = await t.db.graphRelation.findFirstOrThrow({ where: { knowledgeId: kb, relation: "co_occurs" } });
    expect((await relationSupports(t.db, { knowledgeId: kb, relationIds: [String(co.id)], perRelation: 10 })).get(String(co.id))).toHaveLength(3);
  });
});
