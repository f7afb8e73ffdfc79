import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { embedTexts, type EmbedRequest } from "@/lib/models/embeddings";
import { isAbortError } from "@/lib/models/http";
import { RerankUnavailableError, rerank, type RerankRequest } from "@/lib/models/rerank";
import { fakeEmbedding, startFakeOpenAI, type FakeOpenAI } from "@/e2e/support/fake-openai-server";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: "sk-embed-key" });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const embedReq = (over: Partial<EmbedRequest> = {}): EmbedRequest => ({
  baseUrl: fake.baseUrl,
  apiKey: "sk-embed-key",
  model: "text-embedding-v4",
  inputs: [],
  ...over,
});
const caught = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e);

describe("embedTexts", () => {
  const inputs = Array.from({ length: 25 }, (_, i) => `段落 ${i}：员工年假政策第 ${i} 条`);

  it("batches, keeps input order and returns the server's deterministic vectors", async () => {
    const vectors = await embedTexts(embedReq({ inputs, batchSize: 10 }));
    expect(fake.requests.map((r) => r.body.input.length)).toEqual([10, 10, 5]);
    expect(fake.requests[0]!.body).toMatchObject({ model: "text-embedding-v4", encoding_format: "float" });
    expect(fake.requests[0]!.body).not.toHaveProperty("dimensions");
    expect(vectors).toEqual(inputs.map((t) => fakeEmbedding(t, 64)));
    expect(await embedTexts(embedReq({ inputs }))).toEqual(vectors);
  });

  it("defaults to batches of 10 and sends dimensions", async () => {
    const vectors = await embedTexts(embedReq({ inputs, dimensions: 32 }));
    expect(fake.requests.map((r) => [r.body.input.length, r.body.dimensions])).toEqual([[10, 32], [10, 32], [5, 32]]);
    expect(vectors.every((v) => v.length === 32)).toBe(true);
  });

  it("makes no call for no inputs", async () => {
    expect(await embedTexts(embedReq())).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  it.each([
    ["HTTP 500", { kind: "fail", status: 500 }, /HTTP 500/],
    ["malformed JSON", { kind: "malformed" }, /not JSON/],
    ["cut body", { kind: "cut" }, /failed/],
    ["too few vectors", { kind: "json", body: { data: [{ index: 0, embedding: [1, 0] }] } }, /1 vectors for 2/],
    ["non-finite value", { kind: "json", body: { data: [{ embedding: [1, null] }, { embedding: [1, 0] }] } }, /non-finite/],
    ["mixed widths", { kind: "json", body: { data: [{ embedding: [1, 0] }, { embedding: [1] }] } }, /length 1/],
  ] as const)("%s becomes EMBEDDING_UNAVAILABLE", async (_n, scenario, pattern) => {
    fake.script({ ...scenario, endpoint: "embeddings" });
    const err = await caught(embedTexts(embedReq({ inputs: ["a b", "c d"] })));
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("EMBEDDING_UNAVAILABLE");
    expect((err as AppError).message).toMatch(pattern);
  });

  it("a later batch of a different width fails the whole call", async () => {
    fake.script({ kind: "ok", endpoint: "embeddings" });
    fake.script({ kind: "json", endpoint: "embeddings", body: { data: [{ embedding: [1, 0, 0] }] } });
    const err = await caught(embedTexts(embedReq({ inputs: ["a", "b"], batchSize: 1 })));
    expect((err as AppError).message).toMatch(/length 3, expected 64/);
  });

  it("a wrong key becomes EMBEDDING_UNAVAILABLE without the key in the message", async () => {
    const err = await caught(embedTexts(embedReq({ inputs: ["x"], apiKey: "sk-not-the-right-one" })));
    expect((err as AppError).code).toBe("EMBEDDING_UNAVAILABLE");
    expect((err as AppError).message).toMatch(/HTTP 401/);
    expect((err as AppError).message).not.toContain("sk-not-the-right-one");
  });

  it("abort surfaces as AbortError", async () => {
    fake.script({ kind: "stall", endpoint: "embeddings" });
    const ac = new AbortController();
    const p = caught(embedTexts(embedReq({ inputs: ["x"], signal: ac.signal })));
    setTimeout(() => ac.abort(), 50);
    expect(isAbortError(await p)).toBe(true);
  });
});

describe("rerank", () => {
  const docs = ["quarterly revenue forecast", "年假政策的实施范围适用于全体正式员工", "office coffee machine"];
  const rerankReq = (over: Partial<RerankRequest> = {}): RerankRequest => ({
    baseUrl: fake.baseUrl,
    apiKey: "sk-embed-key",
    model: "gte-rerank",
    query: "年假政策实施范围",
    documents: docs,
    ...over,
  });

  it("sends the common body and returns results best first", async () => {
    const results = await rerank(rerankReq({ topN: 2 }));
    expect(fake.requests[0]!.body).toEqual({ model: "gte-rerank", query: "年假政策实施范围", documents: docs, top_n: 2 });
    expect(results).toHaveLength(2);
    expect(results[0]!.index).toBe(1);
    expect(results[0]!.relevance_score).toBeGreaterThan(results[1]!.relevance_score);
  });

  it("accepts DashScope's {output:{results}} shape and sorts it", async () => {
    fake.script({
      kind: "json",
      endpoint: "rerank",
      body: { output: { results: [{ index: 0, relevance_score: 0.1 }, { index: 2, relevance_score: 0.9 }] } },
    });
    expect(await rerank(rerankReq())).toEqual([
      { index: 2, relevance_score: 0.9 },
      { index: 0, relevance_score: 0.1 },
    ]);
  });

  it.each([
    ["HTTP 500", { kind: "fail", status: 500 }],
    ["malformed JSON", { kind: "malformed" }],
    ["index out of range", { kind: "json", body: { results: [{ index: 9, relevance_score: 0.5 }] } }],
    ["cut", { kind: "cut" }],
  ] as const)("%s becomes RerankUnavailableError", async (_n, scenario) => {
    // Every request gets the scenario: a cut before any response on a pooled connection is
    // retried once on a new one (lib/models/http.ts), and that attempt must fail too.
    fake.setDefault({ ...scenario, endpoint: "rerank" });
    const err = await caught(rerank(rerankReq()));
    expect(err).toBeInstanceOf(RerankUnavailableError);
    expect(err).not.toBeInstanceOf(AppError);
  });

  it("an unreachable endpoint becomes RerankUnavailableError; no documents means no call", async () => {
    expect(await caught(rerank(rerankReq({ baseUrl: "http://127.0.0.1:1/v1" })))).toBeInstanceOf(RerankUnavailableError);
    expect(await rerank(rerankReq({ documents: [] }))).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });
});
