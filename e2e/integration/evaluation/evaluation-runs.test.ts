// The KB evaluation over HTTP (issue 21): question sets uploaded as CSV/JSONL (malformed rows
// reported by line, the rest kept), runs as background jobs through the chat's retrieve(),
// metrics against a hand-checked tiny set, progress, cancel, restart, export, access, bounds;
// "generate questions from this KB" with the local test model (a chat model is configured, so
// the runs also carry translate: true, which English questions on English files never use).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "@/e2e/support/fake-openai-server";
import { getDb, getRawDb } from "@/lib/db/client";
import { evaluationRunnerIdle, setEvaluationTestHook, startEvaluationRunner } from "@/lib/retrieval/evaluation/runner";
import { seedIndexedFile } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;
type Run = { id: string; status: string; done: number; total: number; settings: { min_score: number; top_k: number; chunking: { target_chars: number } }; metrics: Record<string, number | null | number[] | object> | null };
type Result = { ordinal: number; question: string; first_correct_rank: number | null; refused: boolean; top_score: number | null; top_hits: Array<{ rank: number; page_start: number; correct: boolean }> };

const PAGES = [
  "Northwind Logistics — quarterly shipment report. This report lists every outbound shipment, its origin and its carrier.",
  "Shipment 123405 was dispatched from the Rotterdam warehouse on 4 March by rail, carrier Baltic Freight.",
  "Shipment 123406 was dispatched from the Hamburg warehouse on 6 March by truck, carrier NordTrans.",
  "Delays: two shipments were held at customs for inspection; the carriers were notified.",
];
const GEN_PASSAGES = [
  "Shipment 123405 was dispatched from the Rotterdam warehouse on 4 March by rail, carrier Baltic Freight, with 40 pallets.",
  "Shipment 123406 was dispatched from the Hamburg warehouse on 6 March by truck, carrier NordTrans, with 12 pallets.",
  "Delays: two shipments were held at customs for inspection; the carriers were notified by e-mail the same day.",
  "short",
];
const NOTES = ["Rotterdam port notes: the Rotterdam warehouse handles rail freight for Baltic routes."];

describe("KB evaluation runs", () => {
  let app: App;
  let fake: FakeOpenAI;
  let owner: Client;
  let editor: Client;
  let viewer: Client;
  let stranger: Client;
  let kb: string;
  let genKb: string;
  const base = () => `/v1/knowledges/${kb}/evaluation`;

  const waitRun = async (c: Client, id: string, until: (r: Run) => boolean): Promise<Run> => {
    for (let i = 0; i < 600; i++) {
      const r = await c.json<Run>("GET", `${base()}/runs/${id}`);
      if (until(r.data)) return r.data;
      await new Promise((res) => setTimeout(res, 50));
    }
    throw new Error("run did not reach the state");
  };
  const results = async (id: string, extra = "") => (await owner.json<{ items: Result[]; total: number }>("GET", `${base()}/runs/${id}/results?page_size=200${extra}`)).data;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    app = await startIntegrationApp({ AUTH_MODE: "password", AI_CHAT_MODEL: "qwen-test", AI_CHAT_BASE_URL: fake.baseUrl, AI_CHAT_API_KEY: "k" });
    [owner, editor, viewer, stranger] = [0, 1, 2, 3].map(() => new Client(app.baseUrl)) as [Client, Client, Client, Client];
    await owner.signUp({ email: "own@ev.test", password: "password-o" });
    await editor.signUp({ email: "edit@ev.test", password: "password-e" });
    await viewer.signUp({ email: "view@ev.test", password: "password-v" });
    await stranger.signUp({ email: "str@ev.test", password: "password-s" });
    kb = (await owner.json<{ id: string }>("POST", "/v1/knowledges", { name: "logistics" })).data.id;
    await owner.json("POST", `/v1/knowledges/${kb}/members`, { email: "edit@ev.test", role: "editor" });
    await owner.json("POST", `/v1/knowledges/${kb}/members`, { email: "view@ev.test", role: "viewer" });
    await seedIndexedFile(kb, "shipments.pdf", PAGES.map((content, i) => ({ content, pageStart: i + 1 })));
    await seedIndexedFile(kb, "notes.md", NOTES.map((content) => ({ content })));
    genKb = (await owner.json<{ id: string }>("POST", "/v1/knowledges", { name: "gen" })).data.id;
    await owner.json("POST", `/v1/knowledges/${genKb}/members`, { email: "view@ev.test", role: "viewer" });
    await seedIndexedFile(genKb, "shipments.pdf", GEN_PASSAGES.map((content, i) => ({ content, pageStart: i + 1 })));
  });
  afterAll(async () => {
    setEvaluationTestHook(undefined);
    await evaluationRunnerIdle();
    await app.close();
    await fake.close();
  });

  it("computes the metrics of a hand-checked tiny set with the chat's retrieval and min_score", async () => {
    const jsonl = [
      { question: "Which warehouse did shipment 123405 leave?", expected_file: "shipments.pdf", expected_page: 2 },
      { question: "customs inspection delays", expected_text: "two shipments were held at customs" },
      // Page 9 does not exist: a miss at every rank.
      { question: "Shipment 123406 Hamburg truck", expected_page: 9 },
      // Only the notes file is correct; the shipments page about Rotterdam competes with it.
      { question: "Rotterdam warehouse rail freight", expected_file: "notes.md" },
      { question: "zebra quantum chromodynamics", unanswerable: true },
      { question: "Shipment 123405 Rotterdam warehouse", unanswerable: true },
    ].map((q) => JSON.stringify(q)).join("\n");
    const set = await owner.json<{ id: string; question_count: number }>("POST", `${base()}/sets`, { name: "tiny", format: "jsonl", content: jsonl });
    expect(set.code).toBe(0);
    expect(set.data.question_count).toBe(6);
    const run = await editor.json<Run>("POST", `${base()}/runs`, { set_id: set.data.id, min_score: null });
    expect(run.code).toBe(0);
    expect(run.data).toMatchObject({ status: "queued", total: 6, settings: { min_score: 0.5, top_k: 20, chunking: { target_chars: 650 } } });
    const done = await waitRun(owner, run.data.id, (r) => r.status !== "queued" && r.status !== "running");
    expect(done).toMatchObject({ status: "succeeded", done: 6 });
    const rows = (await results(run.data.id)).items;
    expect(rows.map((r) => r.ordinal)).toEqual([0, 1, 2, 3, 4, 5]);

    // Hand-checked: Q1 and Q2 are found first; Q3's page does not exist; the zebra question has no hit.
    expect(rows[0]!.first_correct_rank).toBe(1);
    expect(rows[1]!.first_correct_rank).toBe(1);
    expect(rows[2]!.first_correct_rank).toBeNull();
    expect(rows[4]).toMatchObject({ first_correct_rank: null, refused: true, top_score: null });
    expect(rows[5]!.refused).toBe(false);

    // Q4's rank independently: the retrieval test page's ranking (same retrieve(), top_k 20).
    const rt = await owner.json<{ hits: Array<{ file_name: string; score: number }> }>("POST", `/v1/knowledges/${kb}/retrieval-test`, { query: "Rotterdam warehouse rail freight", top_k: 20 });
    const r4 = rt.data.hits.findIndex((h) => h.file_name === "notes.md") + 1;
    expect(r4).toBeGreaterThan(0);
    expect(rows[3]!.first_correct_rank).toBe(r4);

    // The same verdict the retrieval test gives at min_score 0.5, per question.
    for (const [i, q] of ["Which warehouse did shipment 123405 leave?", "customs inspection delays"].entries()) {
      const v = await owner.json<{ grounded: { answer: boolean } }>("POST", `/v1/knowledges/${kb}/retrieval-test`, { query: q, min_score: 0.5 });
      expect(rows[i]!.refused).toBe(!v.data.grounded.answer);
    }

    const ranks = [1, 1, null, r4];
    const expNdcg = ranks.reduce<number>((s, r) => s + (r !== null && r <= 10 ? 1 / Math.log2(r + 1) : 0), 0) / 4;
    const expMrr = ranks.reduce<number>((s, r) => s + (r !== null && r <= 10 ? 1 / r : 0), 0) / 4;
    const m = done.metrics as Record<string, number | number[] | { correct: number[]; incorrect: number[] }>;
    expect(m.questions).toBe(6);
    expect(m.answerable).toBe(4);
    expect(m.unanswerable).toBe(2);
    expect(m.ndcg_at_10).toBeCloseTo(expNdcg, 12);
    expect(m.mrr_at_10).toBeCloseTo(expMrr, 12);
    expect(m.recall_at_5).toBeCloseTo(ranks.filter((r) => r !== null && r <= 5).length / 4, 12);
    expect(m.recall_at_20).toBeCloseTo(3 / 4, 12);
    const refusedAnswerable = rows.slice(0, 4).filter((r) => r.refused).length;
    expect(m.refusal_rate_answerable).toBeCloseTo(refusedAnswerable / 4, 12);
    expect(m.refusal_rate_unanswerable).toBeCloseTo(1 / 2, 12);
    const curve = m.recall_by_rank as number[];
    expect(curve).toHaveLength(20);
    expect(curve[0]).toBeCloseTo((r4 === 1 ? 3 : 2) / 4, 12);
    expect(curve[19]).toBeCloseTo(3 / 4, 12);
    const hist = m.score_histogram as { correct: number[]; incorrect: number[] };
    // Five questions have a top hit (the zebra question has none): Q1, Q2 correct at the top.
    expect(hist.correct.reduce((a, b) => a + b, 0) + hist.incorrect.reduce((a, b) => a + b, 0)).toBe(5);
    expect(hist.correct.reduce((a, b) => a + b, 0)).toBe(r4 === 1 ? 3 : 2);

    // Per-question table: expected vs top results.
    expect(rows[0]!.top_hits[0]).toMatchObject({ rank: 1, page_start: 2, correct: true });
    const missed = await results(run.data.id, "&filter=missed");
    expect(missed.items.map((r) => r.ordinal)).toContain(2);

    // Export as CSV: a header and one row per question, formulas neutralised.
    const csv = await owner.request("GET", `${base()}/runs/${run.data.id}/export`);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const text = await csv.text();
    const lines = text.replace(/^\uFEFF/, "").trim().split(/\r?\n/);
    expect(lines[0]).toMatch(/^ordinal,question,should_not_answer,expected_file,expected_page/);
    expect(lines).toHaveLength(7);
    expect(lines[1]).toMatch(/^1,Which warehouse did shipment 123405 leave\?,false,shipments\.pdf,2,/);
  });

  it("reports a malformed CSV row with its line number and runs the rest", async () => {
    const csv = [
      "question,expected_file,expected_page,expected_text,unanswerable",
      "Which warehouse did shipment 123405 leave?,shipments.pdf,2,,",
      "Shipment 123406 Hamburg,shipments.pdf,three,,",
      "customs inspection,,,two shipments were held at customs,no",
      "too,many,columns,here,no,extra",
      "Is there a zebra?,,,,yes",
      "No expectation at all,,,,",
    ].join("\n");
    const set = await owner.json<{ id: string; question_count: number; parse_error_count: number; parse_errors: Array<{ line: number; message: string }> }>("POST", `${base()}/sets`, { name: "with errors", format: "csv", content: csv });
    expect(set.code).toBe(0);
    expect(set.data.question_count).toBe(3);
    expect(set.data.parse_errors.map((e) => e.line)).toEqual([3, 5, 7]);
    expect(set.data.parse_errors[0]!.message).toMatch(/expected_page/);
    const run = await owner.json<Run>("POST", `${base()}/runs`, { set_id: set.data.id });
    const done = await waitRun(owner, run.data.id, (r) => r.status === "succeeded" || r.status === "failed");
    expect(done).toMatchObject({ status: "succeeded", total: 3, done: 3 });
    expect((await results(run.data.id)).items.map((r) => r.question)).toEqual(["Which warehouse did shipment 123405 leave?", "customs inspection", "Is there a zebra?"]);
    // Every row malformed: nothing to run, the lines are named.
    const bad = await owner.json("POST", `${base()}/sets`, { name: "bad", format: "csv", content: "question,expected_page\nq1,x\nq2,y" });
    expect(bad.code).toBe("QUESTION_SET_INVALID");
    expect(bad.msg).toMatch(/line 2.*line 3/);
    expect((await owner.json("POST", `${base()}/sets`, { name: "no header", format: "csv", content: "a,b\n1,2" })).code).toBe("QUESTION_SET_INVALID");
  });

  it("reports progress while running and stops on cancel, keeping the results so far", async () => {
    const questions = Array.from({ length: 60 }, (_, i) => ({ question: `Shipment 123405 warehouse ${i}`, expected_page: 2 }));
    const set = await owner.json<{ id: string }>("POST", `${base()}/sets`, { name: "sixty", questions });
    expect(set.code).toBe(0);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    setEvaluationTestHook(async (_run, ordinal) => {
      if (ordinal === 30) await held;
    });
    const run = await owner.json<Run>("POST", `${base()}/runs`, { set_id: set.data.id, min_score: 0.3 });
    // Progress: the run reports its first batch while held at question 30.
    const mid = await waitRun(owner, run.data.id, (r) => r.status === "running" && r.done >= 20);
    expect(mid).toMatchObject({ status: "running", done: 20, total: 60, settings: { min_score: 0.3 } });
    expect((await viewer.json("POST", `${base()}/runs/${run.data.id}/cancel`)).code).toBe("FORBIDDEN");
    const c = await editor.json<Run>("POST", `${base()}/runs/${run.data.id}/cancel`);
    expect(c.code).toBe(0);
    release();
    const end = await waitRun(owner, run.data.id, (r) => r.status !== "running");
    setEvaluationTestHook(undefined);
    expect(end.status).toBe("cancelled");
    expect(end.done).toBeGreaterThanOrEqual(20);
    expect(end.done).toBeLessThan(60);
    expect((await results(run.data.id)).total).toBe(end.done);
    expect(end.metrics).toMatchObject({ questions: end.done });
  });

  it("marks a run left running by a dead process failed at start-up", async () => {
    const set = await owner.json<{ id: string }>("POST", `${base()}/sets`, { name: "restart", questions: [{ question: "Shipment 123405", expected_page: 2 }] });
    const raw = await getRawDb();
    const id = "run-left-running";
    await raw.$executeRawUnsafe(
      `INSERT INTO evaluation_runs (id, knowledge_id, set_id, set_name, status, total, done, settings, created_by, locked_by, locked_at, started_at)
       SELECT $1, $2, $3, 'restart', 'running', 1, 0, '{"min_score":0.5}'::jsonb, owner_id, 'dead-worker', now(), now() FROM knowledges WHERE id = $2`,
      id,
      kb,
      set.data.id,
    );
    expect(await startEvaluationRunner({ embedded: true })).toBe(1);
    const r = await owner.json<Run & { error_message: string }>("GET", `${base()}/runs/${id}`);
    expect(r.data).toMatchObject({ status: "failed", error_message: "Interrupted by a server restart." });
  });

  it("keeps owners and editors in, viewers out, and other KBs' ids missing", async () => {
    expect((await editor.json("GET", base())).code).toBe(0);
    expect((await viewer.json("GET", base())).code).toBe("FORBIDDEN");
    expect((await viewer.json("GET", `${base()}/runs`)).code).toBe("FORBIDDEN");
    expect((await stranger.json("GET", base())).code).toBe("KNOWLEDGE_NOT_FOUND");
    const runs = (await owner.json<{ runs: Run[]; sets: Array<{ id: string }> }>("GET", base())).data;
    const other = (await stranger.json<{ id: string }>("POST", "/v1/knowledges", { name: "mine" })).data.id;
    const runId = runs.runs[0]!.id;
    const setId = runs.sets[0]!.id;
    expect((await stranger.json("GET", `/v1/knowledges/${other}/evaluation/runs/${runId}`)).code).toBe("EVALUATION_RUN_NOT_FOUND");
    expect((await stranger.json("GET", `/v1/knowledges/${other}/evaluation/runs/${runId}/results`)).code).toBe("EVALUATION_RUN_NOT_FOUND");
    expect((await stranger.json("GET", `/v1/knowledges/${other}/evaluation/runs/${runId}/export`)).code).toBe("EVALUATION_RUN_NOT_FOUND");
    expect((await stranger.json("GET", `/v1/knowledges/${other}/evaluation/sets/${setId}`)).code).toBe("EVALUATION_SET_NOT_FOUND");
    expect((await stranger.json("POST", `/v1/knowledges/${other}/evaluation/runs`, { set_id: setId })).code).toBe("EVALUATION_SET_NOT_FOUND");
    expect((await stranger.json("DELETE", `/v1/knowledges/${other}/evaluation/runs/${runId}`)).code).toBe("EVALUATION_RUN_NOT_FOUND");
  });

  it("answers hostile input with clear codes", async () => {
    const url = `${base()}/sets`;
    const raw = await owner.request("POST", url, "{not json", { "content-type": "application/json" });
    expect((await raw.json()).code).toBe("INVALID_PARAMS");
    expect((await owner.json("POST", url, { name: "x", format: "xml", content: "" })).code).toBe("INVALID_PARAMS");
    expect((await owner.json("POST", url, { name: "x", questions: [{ question: 42 }] })).code).toBe("INVALID_PARAMS");
    expect((await owner.json("POST", url, { name: "x", questions: [{ question: "q", expected_page: "2" }] })).code).toBe("INVALID_PARAMS");
    expect((await owner.json("POST", url, { name: "x\u0000", questions: [] })).code).toBe("INVALID_PARAMS");
    expect((await owner.json("POST", url, { name: "x", questions: [] })).code).toBe("QUESTION_SET_INVALID");
    expect((await owner.json("POST", `${base()}/runs`, { set_id: "../etc" })).code).toBe("INVALID_PARAMS");
    expect((await owner.json("POST", `${base()}/runs`, { set_id: "missing", min_score: 3 })).code).toBe("INVALID_PARAMS");
    expect((await owner.json("POST", `${base()}/runs`, { set_id: "missing" })).code).toBe("EVALUATION_SET_NOT_FOUND");
    expect((await owner.json("GET", `${base()}/runs/x/results?filter=evil`)).code).toBe("INVALID_PARAMS");
    // A script in a set name is stored as text, and comes back as text.
    const s = await owner.json<{ name: string }>("POST", url, { name: "<script>alert(1)</script>", questions: [{ question: "q", unanswerable: true }] });
    expect(s.data.name).toBe("<script>alert(1)</script>");
  });

  it("bounds a set at 10,000 questions: 10,000 are parsed and stored, 10,001 refused", async () => {
    const row = (i: number) => `"What left warehouse number ${i}, and when?",shipments.pdf,${(i % 4) + 1},"Shipment ${i} was dispatched from the warehouse",no`;
    const header = "question,expected_file,expected_page,expected_text,unanswerable";
    const csv = [header, ...Array.from({ length: 10_000 }, (_, i) => row(i))].join("\n");
    const before = process.memoryUsage().heapUsed;
    const set = await owner.json<{ id: string; question_count: number; questions: unknown[] }>("POST", `${base()}/sets`, { name: "ten thousand", format: "csv", content: csv });
    expect(set.code).toBe(0);
    expect(set.data.question_count).toBe(10_000);
    // The request, the parse and the stored set together stay within tens of MB (a 1.2 MB file).
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(200 * 1024 * 1024);
    const over = await owner.json("POST", `${base()}/sets`, { name: "too many", format: "csv", content: `${csv}\n${row(10_000)}` });
    expect(over.code).toBe("QUESTION_SET_TOO_LARGE");
    const huge = await owner.json("POST", `${base()}/sets`, { name: "huge", format: "jsonl", content: "x".repeat(8 * 1024 * 1024 + 1) });
    expect(huge.code).toBe("QUESTION_SET_TOO_LARGE");
  });
  it("drafts one question per sampled passage, each linked to its passage", async () => {
    expect((await owner.json<{ can_generate: boolean }>("GET", `/v1/knowledges/${genKb}/evaluation`)).data.can_generate).toBe(true);
    const before = await (await getDb()).evaluationSet.count();
    const r = await owner.json<{ questions: Array<{ question: string; chunk_id: string; expected_file: string; expected_page: number; expected_text: string; passage: string }> }>(
      "POST",
      `/v1/knowledges/${genKb}/evaluation/sets/generate`,
      { count: 5 },
    );
    expect(r.code).toBe(0);
    // The 5-character passage is too short to ask about: three drafts.
    expect(r.data.questions).toHaveLength(3);
    const chunks = await (await getDb()).chunk.findMany({ where: { knowledgeId: genKb } });
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
    const saved = await owner.json<{ question_count: number }>("POST", `/v1/knowledges/${genKb}/evaluation/sets`, {
      name: "drafted",
      questions: r.data.questions.map(({ passage: _p, ...q }) => q),
    });
    expect(saved.data.question_count).toBe(3);
  });

  it("is for owners and editors only, and bounded", async () => {
    expect((await viewer.json("POST", `/v1/knowledges/${genKb}/evaluation/sets/generate`, { count: 2 })).code).toBe("FORBIDDEN");
    expect((await owner.json("POST", `/v1/knowledges/${genKb}/evaluation/sets/generate`, { count: 500 })).code).toBe("INVALID_PARAMS");
  });

  it("says the model failed when it does", async () => {
    fake.script({ kind: "fail", status: 500 });
    expect((await owner.json("POST", `/v1/knowledges/${genKb}/evaluation/sets/generate`, { count: 1 })).code).toBe("MODEL_UNAVAILABLE");
  });
});
