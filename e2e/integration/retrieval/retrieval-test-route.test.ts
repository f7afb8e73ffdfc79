// POST /v1/knowledges/{kb_id}/retrieval-test over HTTP: the chat's retrieval with every score,
// the grounded verdict, owners and editors only, hostile input answered with clear codes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedIndexedFile } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

const PAGES = [
  "Northwind Logistics — quarterly shipment report. This report lists every outbound shipment, its origin and its carrier.",
  "Shipment 123405 was dispatched from the Rotterdam warehouse on 4 March by rail, carrier Baltic Freight.",
  "Shipment 123406 was dispatched from the Hamburg warehouse on 6 March by truck, carrier NordTrans.",
  "Delays: two shipments were held at customs for inspection; the carriers were notified.",
];

describe("retrieval test route", () => {
  let app: App;
  let owner: Client;
  let editor: Client;
  let viewer: Client;
  let stranger: Client;
  let kb: string;
  let fileId: string;
  const url = () => `/v1/knowledges/${kb}/retrieval-test`;

  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "password" });
    [owner, editor, viewer, stranger] = [0, 1, 2, 3].map(() => new Client(app.baseUrl)) as [Client, Client, Client, Client];
    await owner.signUp({ email: "own@rt.test", password: "password-o" });
    await editor.signUp({ email: "edit@rt.test", password: "password-e" });
    await viewer.signUp({ email: "view@rt.test", password: "password-v" });
    await stranger.signUp({ email: "str@rt.test", password: "password-s" });
    kb = (await owner.json<{ id: string }>("POST", "/v1/knowledges", { name: "logistics" })).data.id;
    await owner.json("POST", `/v1/knowledges/${kb}/members`, { email: "edit@rt.test", role: "editor" });
    await owner.json("POST", `/v1/knowledges/${kb}/members`, { email: "view@rt.test", role: "viewer" });
    fileId = await seedIndexedFile(kb, "shipments.pdf", PAGES.map((content, i) => ({ content, pageStart: i + 1 })));
  });
  afterAll(() => app.close());

  it("returns the ranked hits with every score, highlights and a grounded verdict", async () => {
    const r = await owner.json<{
      hits: Array<{ rank: number; file_id: string; page_start: number; quote: string; highlights: [number, number][]; score: number; passes_min_score: boolean; scores: Record<string, number | null> }>;
      grounded: { answer: boolean; reason: string };
      terms: Array<{ term: string; df: number }>;
      answerability: { cap: number; ceiling: number; probability: number };
      top_k: number;
      min_score: number;
    }>("POST", url(), { query: "Which warehouse did shipment 123405 leave?" });
    expect(r.code).toBe(0);
    const d = r.data;
    expect(d).toMatchObject({ top_k: 8, min_score: 0.5, grounded: { answer: true, reason: "ok" } });
    const top = d.hits[0]!;
    expect(top).toMatchObject({ rank: 1, file_id: fileId, page_start: 2, passes_min_score: true });
    expect(top.highlights.map(([a, b]) => top.quote.slice(a, b))).toEqual(["Shipment", "123405", "warehouse"]);
    // Every score that decided the rank, consistent with each other.
    expect(Object.keys(top.scores).sort()).toEqual(
      ["final", "fused", "lexical", "lexicalCalibrated", "lexicalRatio", "lexicalRaw", "mmrPosition", "relevance", "relevanceRank", "rerank", "vector", "vectorCosine"].sort(),
    );
    expect(top.scores.final).toBeCloseTo(top.score, 9);
    // The order and MMR use the uncapped relevance; the reported score is it held to the query's ceiling.
    expect(top.scores.final).toBeCloseTo(Math.min(top.scores.relevance!, d.answerability.ceiling), 12);
    expect(d.hits.map((h) => h.score)).toEqual([...d.hits.map((h) => h.score)].sort((x, y) => y - x));
    expect(top.scores.lexical).toBeLessThanOrEqual(top.scores.lexicalCalibrated!);
    expect(top.scores.lexical).toBeLessThanOrEqual(d.answerability.cap + 1e-12);
    expect(top.scores.vector).toBeNull();
    expect(d.terms.find((t) => t.term === "leav")).toMatchObject({ df: 0 });
  });

  it("explains a refusal: at a higher min_score, and for a question the KB cannot answer", async () => {
    const high = await owner.json<{ grounded: { answer: boolean; reason: string; cap: number }; hits: Array<{ passes_min_score: boolean; scores: { lexicalCalibrated: number } }> }>("POST", url(), {
      query: "Which warehouse did shipment 123405 leave?",
      min_score: 0.95,
    });
    // The passage itself scores above 0.95; the question's answerability cap ("leave" is in no passage) does not.
    expect(high.data.grounded).toMatchObject({ answer: false, reason: "answerability" });
    expect(high.data.grounded.cap).toBeLessThan(0.95);
    expect(high.data.hits[0]!.scores.lexicalCalibrated).toBeGreaterThanOrEqual(0.95);
    expect(high.data.hits.every((h) => !h.passes_min_score)).toBe(true);
    const none = await owner.json<{ grounded: { answer: boolean; reason: string } }>("POST", url(), { query: "Which warehouse did shipment 999999 leave?" });
    expect(none.data.grounded.answer).toBe(false);
    expect(["answerability", "below_min_score"]).toContain(none.data.grounded.reason);
    const nothing = await owner.json<{ grounded: { reason: string }; hits: unknown[] }>("POST", url(), { query: "zebra quantum" });
    expect(nothing.data).toMatchObject({ hits: [], grounded: { reason: "no_match" } });
  });

  it("honours the file filter and top_k", async () => {
    const r = await editor.json<{ hits: unknown[] }>("POST", url(), { query: "shipment", top_k: 2, file_ids: [fileId] });
    expect(r.code).toBe(0);
    expect(r.data.hits).toHaveLength(2);
  });

  it("owners and editors only; another user's KB looks missing", async () => {
    expect((await viewer.json("POST", url(), { query: "shipment" })).code).toBe("FORBIDDEN");
    expect((await stranger.json("POST", url(), { query: "shipment" })).code).toBe("KNOWLEDGE_NOT_FOUND");
    expect((await stranger.json("POST", "/v1/knowledges/not-a-kb/retrieval-test", { query: "shipment" })).code).toBe("KNOWLEDGE_NOT_FOUND");
  });

  it("answers hostile input with clear codes", async () => {
    const raw = await owner.request("POST", url(), "{not json", { "content-type": "application/json" });
    expect((await raw.json()).code).toBe("INVALID_PARAMS");
    expect((await owner.json("POST", url(), { query: 42 })).code).toBe("INVALID_PARAMS");
    expect((await owner.json("POST", url(), { query: "x", top_k: 99 })).code).toBe("INVALID_PARAMS");
    expect((await owner.json("POST", url(), { query: "x", min_score: "high" })).code).toBe("INVALID_PARAMS");
    expect((await owner.json("POST", url(), { query: "x", extra: true })).code).toBe("INVALID_PARAMS");
    // NUL is refused everywhere (PostgreSQL text cannot hold it); blank is an empty question.
    expect((await owner.json("POST", url(), { query: "\u0000 \u0000" })).code).toBe("INVALID_PARAMS");
    expect((await owner.json("POST", url(), { query: "   " })).code).toBe("MESSAGE_EMPTY");
    expect((await owner.json("POST", url(), { query: "x".repeat(2001) })).code).toBe("MESSAGE_TOO_LONG");
    expect((await owner.json("POST", url(), { query: "x", file_ids: ["foreign-file"] })).code).toBe("FILE_NOT_IN_KNOWLEDGE");
    const big = await owner.request("POST", url(), JSON.stringify({ query: "x".repeat(200_000) }), { "content-type": "application/json" });
    expect(big.status).toBe(413);
  });
});
