import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_CHUNKS, seedIndexedFile } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

describe("this app as a retrieval provider", () => {
  let app: App;
  let a: Client;
  let b: Client;
  let kbA: string;
  let tokenB: string;
  let tokenA: string;

  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "password" });
    a = new Client(app.baseUrl);
    b = new Client(app.baseUrl);
    await a.signUp({ email: "pa@x.test", password: "password-a" });
    await b.signUp({ email: "pb@x.test", password: "password-b" });
    kbA = (await a.json<{ id: string }>("POST", "/v1/knowledges", { name: "A" })).data.id;
    await seedIndexedFile(kbA, "policy.pdf", SAMPLE_CHUNKS);
    tokenA = (await a.json<{ token: string }>("POST", "/v1/api-tokens", { name: "agent" })).data.token;
    tokenB = (await b.json<{ token: string }>("POST", "/v1/api-tokens", { name: "agent" })).data.token;
  });
  afterAll(() => app.close());

  const call = (token: string | null, body: unknown) =>
    new Client(app.baseUrl).json<{ results: Array<{ id: string; content: string; score: number; source: { title: string } }> }>(
      "POST",
      "/v1/provider/retrieve",
      body,
      token ? { authorization: `Bearer ${token}` } : {},
    );

  it("answers the standard request for the token owner's KBs", async () => {
    const r = await call(tokenA, { query: "warranty battery months", topK: 3, knowledgeBaseIds: [kbA] });
    expect(r.code).toBe(0);
    expect(r.data.results[0]!.content).toContain("Batteries are covered for 12 months");
    expect(r.data.results[0]!.source.title).toBe("policy.pdf");
    expect(r.data.results.length).toBeLessThanOrEqual(3);
  });

  it("never searches a KB outside the caller's access targets", async () => {
    const r = await call(tokenB, { query: "warranty battery months", topK: 3, knowledgeBaseIds: [kbA] });
    expect(r.code).toBe(0);
    expect(r.data.results).toEqual([]);
  });

  it("requires a token (not a browser session) and validates the request", async () => {
    expect((await call(null, { query: "x", knowledgeBaseIds: [kbA] })).status).toBe(401);
    const viaCookie = await a.json("POST", "/v1/provider/retrieve", { query: "x", knowledgeBaseIds: [kbA] });
    expect(viaCookie.code).toBe("UNAUTHENTICATED");
    expect((await call(tokenA, { query: "x", topK: 9, knowledgeBaseIds: [kbA] })).code).toBe("INVALID_PARAMS");
    expect((await call(tokenA, { query: "x", knowledgeBaseIds: Array.from({ length: 9 }, (_, i) => `kb${i}`) })).code).toBe("INVALID_PARAMS");
    expect((await call("ka_forged", { query: "x", knowledgeBaseIds: [kbA] })).status).toBe(401);
  });

  it("revoked tokens stop working", async () => {
    const t = await a.json<{ id: string; token: string }>("POST", "/v1/api-tokens", { name: "temp" });
    expect((await call(t.data.token, { query: "warranty", knowledgeBaseIds: [kbA] })).code).toBe(0);
    expect((await b.json("DELETE", `/v1/api-tokens/${t.data.id}`)).code).toBe("INVALID_PARAMS");
    expect((await a.json("DELETE", `/v1/api-tokens/${t.data.id}`)).code).toBe(0);
    expect((await call(t.data.token, { query: "warranty", knowledgeBaseIds: [kbA] })).status).toBe(401);
  });
});
