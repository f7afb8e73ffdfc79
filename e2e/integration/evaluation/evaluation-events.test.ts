// Pushed progress of KB evaluation runs (issue 21: "a background job with progress", tested by
// its progress events) over real HTTP: GET …/evaluation/runs/{run_id}/events. Progress events in
// order with increasing done, one terminal event with the metrics summary after which the
// stream ends, the current state first for a late client, the cancelled end (running and
// queued runs), a deleted run, the same access answers as the run's GET, and the server's
// subscription released when the client goes away. PGlite, or PostgreSQL with TEST_DATABASE_URL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveListenerCount } from "@/lib/db/live-events";
import { evaluationRunnerIdle, setEvaluationTestHook } from "@/lib/retrieval/evaluation/runner";
import { seedIndexedFile } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;
type Ev = { event: string; data: Record<string, unknown> };
type Run = { id: string; status: string; done: number; total: number; metrics: Record<string, unknown> | null; finished_at: string | null };

const PAGES = [
  "Northwind Logistics — quarterly shipment report. This report lists every outbound shipment, its origin and its carrier.",
  "Shipment 123405 was dispatched from the Rotterdam warehouse on 4 March by rail, carrier Baltic Freight.",
  "Shipment 123406 was dispatched from the Hamburg warehouse on 6 March by truck, carrier NordTrans.",
];

/** An SSE response read as it arrives: events so far, and a promise of the stream's end. */
function follow(res: Response) {
  const events: Ev[] = [];
  const waiters: Array<() => void> = [];
  const ended = (async () => {
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let i: number;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (!block.trim() || block.startsWith(":")) continue;
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
        const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null") as Record<string, unknown>;
        events.push({ event, data });
        waiters.splice(0).forEach((w) => w());
      }
    }
    waiters.splice(0).forEach((w) => w());
    return events;
  })();
  let over = false;
  void ended.then(() => (over = true));
  /** Resolves once an event satisfies `pred` (rejects if the stream ends first). */
  const until = async (pred: (e: Ev) => boolean): Promise<Ev> => {
    for (;;) {
      const hit = events.find(pred);
      if (hit) return hit;
      if (over) throw new Error(`stream ended without the event; got ${JSON.stringify(events.map((e) => [e.event, e.data.done]))}`);
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { events, ended, until };
}

describe("KB evaluation run events (SSE)", () => {
  let app: App;
  let owner: Client;
  let editor: Client;
  let viewer: Client;
  let stranger: Client;
  let kb: string;
  let setId: string;
  const base = () => `/v1/knowledges/${kb}/evaluation`;
  const eventsUrl = (id: string) => `${base()}/runs/${id}/events`;

  const open = async (c: Client, id: string, signal?: AbortSignal) => {
    const res = await c.request("GET", eventsUrl(id), undefined, { accept: "text/event-stream" }, signal);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    return follow(res);
  };
  const startRun = async (minScore = 0.3) => {
    const r = await owner.json<Run>("POST", `${base()}/runs`, { set_id: setId, min_score: minScore });
    expect(r.code).toBe(0);
    return r.data;
  };
  /** Holds the runner before question `at` until released. */
  const hold = (at: number) => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let reached!: () => void;
    const atHold = new Promise<void>((r) => (reached = r));
    setEvaluationTestHook(async (_run, ordinal) => {
      if (ordinal === at) {
        reached();
        await held;
      }
    });
    return { release, atHold };
  };

  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "password" });
    [owner, editor, viewer, stranger] = [0, 1, 2, 3].map(() => new Client(app.baseUrl)) as [Client, Client, Client, Client];
    await owner.signUp({ email: "own@evs.test", password: "password-o" });
    await editor.signUp({ email: "edit@evs.test", password: "password-e" });
    await viewer.signUp({ email: "view@evs.test", password: "password-v" });
    await stranger.signUp({ email: "str@evs.test", password: "password-s" });
    kb = (await owner.json<{ id: string }>("POST", "/v1/knowledges", { name: "logistics" })).data.id;
    await owner.json("POST", `/v1/knowledges/${kb}/members`, { email: "edit@evs.test", role: "editor" });
    await owner.json("POST", `/v1/knowledges/${kb}/members`, { email: "view@evs.test", role: "viewer" });
    await seedIndexedFile(kb, "shipments.pdf", PAGES.map((content, i) => ({ content, pageStart: i + 1 })));
    const questions = Array.from({ length: 60 }, (_, i) =>
      i % 10 === 9 ? { question: `zebra quantum chromodynamics ${i}`, unanswerable: true } : { question: `Shipment 123405 warehouse ${i}`, expected_page: 2 },
    );
    const set = await owner.json<{ id: string }>("POST", `${base()}/sets`, { name: "sixty", questions });
    expect(set.code).toBe(0);
    setId = set.data.id;
  });
  afterAll(async () => {
    setEvaluationTestHook(undefined);
    await evaluationRunnerIdle();
    await app.close();
  });

  it("pushes progress in order with increasing done, then one succeeded event with the metrics, and ends", async () => {
    const h = hold(0);
    const run = await startRun();
    await h.atHold;
    const s = await open(editor, run.id);
    // The current state first: claimed by the runner, nothing stored yet.
    const first = await s.until(() => true);
    expect(first).toEqual({ event: "progress", data: { run_id: run.id, status: "running", done: 0, total: 60 } });
    h.release();
    const events = await s.ended;
    setEvaluationTestHook(undefined);
    const names = events.map((e) => e.event);
    expect(names.at(-1)).toBe("succeeded");
    expect(names.slice(0, -1).every((n) => n === "progress")).toBe(true);
    // Every stored batch of 20, in order, each done higher than the one before.
    const done = events.filter((e) => e.event === "progress").map((e) => e.data.done as number);
    expect(done).toEqual([0, 20, 40, 60]);
    const end = events.at(-1)!.data;
    const got = (await owner.json<Run>("GET", `${base()}/runs/${run.id}`)).data;
    expect(got.status).toBe("succeeded");
    expect(end).toEqual({ run_id: run.id, status: "succeeded", done: 60, total: 60, metrics: got.metrics, error_message: null, finished_at: got.finished_at });
    expect(end.metrics).toMatchObject({ questions: 60, answerable: 54, unanswerable: 6 });
    expect((end.metrics as { recall_at_5: number }).recall_at_5).toBe(1);
    // The server let go of the stream's subscription.
    expect(liveListenerCount("evaluation-run", run.id)).toBe(0);

    // A client connecting after the end gets the final state at once, and the stream ends.
    const late = await open(owner, run.id);
    const lateEvents = await late.ended;
    expect(lateEvents).toEqual([{ event: "succeeded", data: end }]);
  });

  it("ends with a cancelled event when a running run, or a queued one, is cancelled", async () => {
    const h = hold(30);
    const running = await startRun();
    await h.atHold;
    // The runner is held (one run at a time per process): a second run stays queued.
    const queued = await startRun(0.5);
    const sr = await open(owner, running.id);
    const sq = await open(editor, queued.id);
    expect(await sr.until(() => true)).toMatchObject({ event: "progress", data: { status: "running", done: 20, total: 60 } });
    expect(await sq.until(() => true)).toEqual({ event: "progress", data: { run_id: queued.id, status: "queued", done: 0, total: 60 } });

    // Cancelling the queued run ends its stream at once.
    expect((await editor.json("POST", `${base()}/runs/${queued.id}/cancel`)).code).toBe(0);
    const q = await sq.ended;
    expect(q.map((e) => e.event)).toEqual(["progress", "cancelled"]);
    expect(q[1]!.data).toMatchObject({ run_id: queued.id, status: "cancelled", done: 0, total: 60, metrics: null });

    // The running one ends after the question in flight, with the metrics of what it did.
    expect((await editor.json("POST", `${base()}/runs/${running.id}/cancel`)).code).toBe(0);
    h.release();
    const r = await sr.ended;
    setEvaluationTestHook(undefined);
    const end = r.at(-1)!;
    expect(end.event).toBe("cancelled");
    expect(r.slice(0, -1).every((e) => e.event === "progress")).toBe(true);
    const doneEnd = end.data.done as number;
    expect(doneEnd).toBeGreaterThanOrEqual(20);
    expect(doneEnd).toBeLessThan(60);
    expect(end.data).toMatchObject({ status: "cancelled", total: 60, metrics: { questions: doneEnd } });
    expect((await owner.json<Run>("GET", `${base()}/runs/${running.id}`)).data).toMatchObject({ status: "cancelled", done: doneEnd });
  });

  it("ends with EVALUATION_RUN_NOT_FOUND when the run is deleted while streaming", async () => {
    const h = hold(10);
    const run = await startRun();
    await h.atHold;
    const s = await open(owner, run.id);
    await s.until(() => true);
    expect((await owner.json("DELETE", `${base()}/runs/${run.id}`)).code).toBe(0);
    const events = await s.ended;
    h.release();
    setEvaluationTestHook(undefined);
    await evaluationRunnerIdle();
    expect(events.at(-1)).toEqual({ event: "error", data: { code: "EVALUATION_RUN_NOT_FOUND", message: "Evaluation run not found." } });
  });

  it("answers like the run's GET for viewers, other users and another KB's run id", async () => {
    const run = (await owner.json<Run[]>("GET", `${base()}/runs`)).data[0]!;
    const other = (await stranger.json<{ id: string }>("POST", "/v1/knowledges", { name: "mine" })).data.id;
    const cases: Array<[Client, string, string]> = [
      [viewer, `${base()}/runs/${run.id}`, "FORBIDDEN"],
      [stranger, `${base()}/runs/${run.id}`, "KNOWLEDGE_NOT_FOUND"],
      [stranger, `/v1/knowledges/${other}/evaluation/runs/${run.id}`, "EVALUATION_RUN_NOT_FOUND"],
      [owner, `${base()}/runs/no-such-run`, "EVALUATION_RUN_NOT_FOUND"],
    ];
    for (const [c, url, code] of cases) {
      const get = await c.request("GET", url);
      const ev = await c.request("GET", `${url}/events`, undefined, { accept: "text/event-stream" });
      expect(ev.headers.get("content-type")).toMatch(/^application\/json/);
      const [g, e] = [(await get.json()) as { code: string }, (await ev.json()) as { code: string }];
      expect(g.code).toBe(code);
      expect({ status: ev.status, code: e.code }).toEqual({ status: get.status, code: g.code });
    }
    // Signed out: 401, as for the GET.
    const anon = new Client(app.baseUrl);
    const [g, e] = [await anon.request("GET", `${base()}/runs/${run.id}`), await anon.request("GET", eventsUrl(run.id))];
    expect(e.status).toBe(401);
    expect(e.status).toBe(g.status);
  });

  it("lets go of the run when the client disconnects", async () => {
    const h = hold(5);
    const run = await startRun();
    await h.atHold;
    const ac = new AbortController();
    const s = await open(owner, run.id, ac.signal);
    await s.until(() => true);
    expect(liveListenerCount("evaluation-run", run.id)).toBe(1);
    ac.abort();
    await s.ended;
    await expect.poll(() => liveListenerCount("evaluation-run", run.id), { timeout: 10_000 }).toBe(0);
    h.release();
    setEvaluationTestHook(undefined);
    await evaluationRunnerIdle();
    expect((await owner.json<Run>("GET", `${base()}/runs/${run.id}`)).data.status).toBe("succeeded");
  });
});
