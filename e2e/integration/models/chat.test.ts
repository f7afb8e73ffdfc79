import { createServer as createHttpServer } from "node:http";
import { createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { completeChat, streamChat, type ChatRequest, type ChatStreamEvent } from "@/lib/models/chat";
import { isAbortError } from "@/lib/models/http";
import { startFakeOpenAI, type FakeOpenAI } from "@/e2e/support/fake-openai-server";

const KEY = "sk-test-0123456789abcdef";
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: KEY });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const request = (over: Partial<ChatRequest> = {}): ChatRequest => ({
  baseUrl: fake.baseUrl,
  apiKey: KEY,
  model: "gpt-test",
  messages: [{ role: "user", content: "问题\n[1] 手册\n正式员工每年享有十五天带薪年假。" }],
  temperature: 0.2,
  maxTokens: 1024,
  ...over,
});

async function drain(req: ChatRequest) {
  const events: ChatStreamEvent[] = [];
  try {
    for await (const ev of streamChat(req)) events.push(ev);
    return { events, error: null };
  } catch (error) {
    return { events, error };
  }
}

function expectModelUnavailable({ error }: { error: unknown }, pattern: RegExp) {
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe("MODEL_UNAVAILABLE");
  expect((error as AppError).message).toMatch(pattern);
  expect((error as AppError).message).not.toContain(KEY);
  return error as AppError;
}

async function waitFor(cond: () => boolean, ms = 2000) {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("streamChat", () => {
  it("yields deltas in order, then usage, then finish; sends an OpenAI streaming request", async () => {
    fake.script({ kind: "stream", tokens: ["Hel", "lo", " 世界", " [1]"], tokenMs: 5 });
    const { events, error } = await drain(request());
    expect(error).toBeNull();
    expect(events).toEqual([
      { type: "delta", text: "Hel" },
      { type: "delta", text: "lo" },
      { type: "delta", text: " 世界" },
      { type: "delta", text: " [1]" },
      { type: "usage", usage: { prompt_tokens: expect.any(Number), completion_tokens: 4, total_tokens: expect.any(Number) } },
      { type: "finish", reason: "stop" },
    ]);
    const usage = (events[4] as Extract<ChatStreamEvent, { type: "usage" }>).usage;
    expect(usage.total_tokens).toBe(usage.prompt_tokens + 4);
    const [rec] = fake.requests;
    expect(rec!.path).toBe("/v1/chat/completions");
    expect(rec!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(rec!.body).toEqual({
      model: "gpt-test",
      messages: request().messages,
      temperature: 0.2,
      max_tokens: 1024,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("passes the provider's finish reason through", async () => {
    fake.script({ kind: "stream", tokens: ["a"], finishReason: "length" });
    const { events } = await drain(request());
    expect(events.at(-1)).toEqual({ type: "finish", reason: "length" });
  });

  it("streams the default grounded-shaped reply", async () => {
    const { events } = await drain(request());
    const text = events.flatMap((e) => (e.type === "delta" ? [e.text] : [])).join("");
    expect(text).toBe("根据参考资料，“正式员工每年享有十五天带薪年假。”[1]。");
  });

  it.each([
    ["qwen3.6-plus", { enable_thinking: false }],
    ["deepseek-chat", { thinking: { type: "disabled" } }],
  ])("sends thinking-off extras for %s", async (model, extras) => {
    await drain(request({ model }));
    expect(fake.requests[0]!.body).toMatchObject({ ...extras, model, stream: true });
  });

  it("sends no extras for other models and merges extraBody", async () => {
    await drain(request({ extraBody: { seed: 1 } }));
    const body = fake.requests[0]!.body;
    expect(body.seed).toBe(1);
    expect(body).not.toHaveProperty("enable_thinking");
    expect(body).not.toHaveProperty("thinking");
  });

  it("401 becomes MODEL_UNAVAILABLE without echoing the key", async () => {
    const wrong = "sk-wrong-key-9876543210";
    const err = expectModelUnavailable(await drain(request({ apiKey: wrong })), /HTTP 401.*Incorrect API key/);
    expect(err.message).not.toContain(wrong);
    expect(err.details).toMatchObject({ status: 401 });
  });

  it.each([429, 500])("HTTP %i becomes MODEL_UNAVAILABLE with the provider's message", async (status) => {
    fake.script({ kind: "fail", status, body: { error: { message: `upstream says ${status}` } } });
    const result = await drain(request());
    expect(result.events).toEqual([]);
    expectModelUnavailable(result, new RegExp(`HTTP ${status}.*upstream says ${status}`));
  });

  it("connection refused becomes MODEL_UNAVAILABLE", async () => {
    const port = await freePort();
    expectModelUnavailable(await drain(request({ baseUrl: `http://127.0.0.1:${port}/v1` })), /ECONNREFUSED/);
  });

  it("a redirect is not followed: the key never reaches the redirect's target", async () => {
    // A gateway answering 307 towards the (working) fake: following it would succeed.
    const gateway = createHttpServer((_req, res) => {
      res.writeHead(307, { location: `${fake.baseUrl}/chat/completions` });
      res.end();
    });
    await new Promise<void>((r) => gateway.listen(0, "127.0.0.1", r));
    try {
      const port = (gateway.address() as AddressInfo).port;
      const result = await drain(request({ baseUrl: `http://127.0.0.1:${port}/v1` }));
      expectModelUnavailable(result, /HTTP 307/);
      expect(fake.requests).toHaveLength(0);
    } finally {
      await new Promise((r) => gateway.close(r));
    }
  });

  it("a stream event over 1 MB becomes MODEL_UNAVAILABLE instead of growing without bound", async () => {
    fake.script({ kind: "stream", tokens: ["ok", "x".repeat(1_200_000)] });
    const result = await drain(request());
    expect(result.events).toEqual([{ type: "delta", text: "ok" }]);
    expectModelUnavailable(result, /longer than 1048576 characters/);
  });

  it("an error body is read only up to its excerpt's bound, then the connection is closed", async () => {
    // The server sends up to 64 MB, only as fast as the client reads (backpressure). Without the
    // bound the client reads all of it; with it the client stops after 64 KB, so the server gets
    // no further than its socket buffers.
    const LIMIT = 64 * 1024 * 1024;
    let written = 0;
    let serverSawClose = false;
    const big = createHttpServer((_req, res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      const piece = "y".repeat(16_384);
      const pump = () => {
        while (written < LIMIT && !res.destroyed) {
          written += piece.length;
          if (!res.write(piece)) return void res.once("drain", pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
      res.on("close", () => (serverSawClose = true));
    });
    await new Promise<void>((r) => big.listen(0, "127.0.0.1", r));
    try {
      const port = (big.address() as AddressInfo).port;
      const err = expectModelUnavailable(await drain(request({ baseUrl: `http://127.0.0.1:${port}/v1` })), /HTTP 500/);
      expect(err.message.length).toBeLessThan(1000);
      await waitFor(() => serverSawClose);
      expect(written).toBeLessThan(LIMIT / 2);
    } finally {
      big.closeAllConnections();
      await new Promise((r) => big.close(r));
    }
  });

  it("a malformed chunk becomes MODEL_UNAVAILABLE after the good deltas", async () => {
    fake.script({ kind: "malformed", tokens: ["a", "b", "c", "d"], afterTokens: 2 });
    const result = await drain(request());
    expect(result.events).toEqual([{ type: "delta", text: "a" }, { type: "delta", text: "b" }]);
    expectModelUnavailable(result, /not JSON/);
  });

  it("a stream cut mid-way becomes MODEL_UNAVAILABLE, keeping the partial deltas", async () => {
    fake.script({ kind: "cut", tokens: ["a", "b", "c", "d"], afterTokens: 3, endpoint: "chat" });
    const result = await drain(request());
    expect(result.events.map((e) => e.type)).toEqual(["delta", "delta", "delta"]);
    expectModelUnavailable(result, /failed/);
    expect(fake.cancellations).toBe(0); // the server cut it, the client did not leave
  });

  it("a stream that ends cleanly without finish_reason or [DONE] is incomplete", async () => {
    // Serve a 200 SSE body with one delta and then close properly (not a socket reset).
    fake.script({ kind: "json", body: 'data: {"choices":[{"delta":{"content":"x"}}]}\n\n' });
    expectModelUnavailable(await drain(request()), /ended before the answer was complete/);
  });

  it("a stall times out as MODEL_UNAVAILABLE", async () => {
    fake.script({ kind: "stall" });
    const started = Date.now();
    expectModelUnavailable(await drain(request({ timeoutMs: 300 })), /timed out after 300 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("abort mid-stream surfaces as AbortError and the server sees the cancellation within 1 s", async () => {
    fake.script({ kind: "stream", tokens: Array.from({ length: 200 }, (_, i) => `t${i} `), tokenMs: 20 });
    const ac = new AbortController();
    const seen: string[] = [];
    let abortedAt = 0;
    let error: unknown;
    try {
      for await (const ev of streamChat(request({ signal: ac.signal }))) {
        if (ev.type === "delta") seen.push(ev.text);
        if (seen.length === 3) {
          abortedAt = Date.now();
          ac.abort();
        }
      }
    } catch (e) {
      error = e;
    }
    expect(isAbortError(error)).toBe(true);
    expect(error).not.toBeInstanceOf(AppError);
    expect(seen).toEqual(["t0 ", "t1 ", "t2 "]);
    await waitFor(() => fake.cancellations === 1);
    expect(fake.cancellationLog[0]!.at - abortedAt).toBeLessThan(1000);
  });

  it("abort while the provider is silent (before any token) also cancels upstream", async () => {
    fake.script({ kind: "stall" });
    const ac = new AbortController();
    const p = drain(request({ signal: ac.signal }));
    await waitFor(() => fake.requests.length === 1);
    const abortedAt = Date.now();
    ac.abort();
    const { error } = await p;
    expect(isAbortError(error)).toBe(true);
    await waitFor(() => fake.cancellations === 1);
    expect(fake.cancellationLog[0]!.at - abortedAt).toBeLessThan(1000);
  });

  it("an already-aborted signal never reaches the server", async () => {
    const { error } = await drain(request({ signal: AbortSignal.abort() }));
    expect(isAbortError(error)).toBe(true);
    expect(fake.requests).toHaveLength(0);
  });

  it("a consumer that stops iterating closes the upstream request", async () => {
    fake.script({ kind: "stream", tokens: Array.from({ length: 100 }, () => "x"), tokenMs: 20 });
    for await (const ev of streamChat(request())) if (ev.type === "delta") break;
    await waitFor(() => fake.cancellations === 1);
  });
});

describe("completeChat", () => {
  it("returns text, usage and finish reason from a non-streaming call", async () => {
    fake.script({ kind: "stream", tokens: ["改写后的", "问题"] });
    const out = await completeChat(request({ model: "qwen-plus" }));
    expect(out).toEqual({
      text: "改写后的问题",
      usage: { prompt_tokens: expect.any(Number), completion_tokens: 2, total_tokens: expect.any(Number) },
      finishReason: "stop",
    });
    expect(fake.requests[0]!.body).toMatchObject({ stream: false, enable_thinking: false });
    expect(fake.requests[0]!.body).not.toHaveProperty("stream_options");
  });

  it.each([
    ["HTTP 500", { kind: "fail", status: 500 } as const, /HTTP 500/],
    ["malformed body", { kind: "malformed" } as const, /not JSON/],
    ["wrong shape", { kind: "json", body: { choices: [] } } as const, /unexpected shape/],
    ["cut body", { kind: "cut" } as const, /failed/],
    ["body over 32 MB", { kind: "json", body: { filler: "z".repeat(33 * 1024 * 1024) } } as const, /more than 32 MB/],
  ])("%s becomes MODEL_UNAVAILABLE", async (_name, scenario, pattern) => {
    fake.script(scenario);
    const error = await completeChat(request()).then(() => null, (e: unknown) => e);
    expectModelUnavailable({ error }, pattern);
  });

  it("abort surfaces as AbortError and cancels upstream", async () => {
    fake.script({ kind: "stall" });
    const ac = new AbortController();
    const p = completeChat(request({ signal: ac.signal })).then(() => null, (e: unknown) => e);
    await waitFor(() => fake.requests.length === 1);
    ac.abort();
    expect(isAbortError(await p)).toBe(true);
    await waitFor(() => fake.cancellations === 1, 1000);
  });
});

describe("connections to the provider", () => {
  it("are reused: a stream is read past [DONE] to its end instead of destroying its socket", async () => {
    const before = fake.connections;
    for (let i = 0; i < 3; i++) {
      fake.script({ kind: "stream", tokens: ["a", "b"] });
      const { events, error } = await drain(request());
      expect(error).toBeNull();
      expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
    }
    await completeChat(request());
    expect(fake.requests).toHaveLength(4);
    // Four calls over at most one new connection (none if an earlier test left one in the pool).
    expect(fake.connections - before).toBeLessThanOrEqual(1);
  });

  it("a response left open after [DONE] is cut after the grace period and the answer still finishes", async () => {
    let serverSawClose = false;
    const lingering = createHttpServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"choices":[{"index":0,"delta":{"content":"完整"},"finish_reason":null}]}\n\n');
      res.write('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
      res.on("close", () => (serverSawClose = true)); // never ended by the server
    });
    await new Promise<void>((r) => lingering.listen(0, "127.0.0.1", r));
    try {
      const port = (lingering.address() as AddressInfo).port;
      const { events, error } = await drain(request({ baseUrl: `http://127.0.0.1:${port}/v1`, timeoutMs: 30_000 }));
      expect(error).toBeNull();
      expect(events).toEqual([
        { type: "delta", text: "完整" },
        { type: "finish", reason: "stop" },
      ]);
      await waitFor(() => serverSawClose);
    } finally {
      lingering.closeAllConnections();
      await new Promise((r) => lingering.close(r));
    }
  });

  it("a pooled connection the server dropped meanwhile is retried once on a new connection", async () => {
    // The server answers the first request on a connection and drops the connection when a
    // second request arrives on it: the client's request then fails on a reused socket.
    const perSocket = new WeakMap<object, number>();
    let connections = 0;
    const dropping = createHttpServer((req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      if (n > 1) return void req.socket.destroy();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: "好" }, finish_reason: "stop" }] }));
    });
    dropping.on("connection", () => void connections++);
    await new Promise<void>((r) => dropping.listen(0, "127.0.0.1", r));
    try {
      const baseUrl = `http://127.0.0.1:${(dropping.address() as AddressInfo).port}/v1`;
      expect((await completeChat(request({ baseUrl }))).text).toBe("好");
      expect((await completeChat(request({ baseUrl }))).text).toBe("好");
      expect(connections).toBe(2);
    } finally {
      dropping.closeAllConnections();
      await new Promise((r) => dropping.close(r));
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
