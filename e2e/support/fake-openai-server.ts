// A local OpenAI-compatible model server for tests (SPEC §10: tests never reach the internet).
// Real HTTP + SSE on loopback, so clients are exercised through sockets, chunking and disconnects
// exactly as with a provider. Deterministic: same request, same bytes.
//
// In-process:  const fake = await startFakeOpenAI({ tokenMs: 5 }); fake.script({ kind: "fail", status: 500 });
// As a process (e2e, bench):
//   node --import tsx tests/support/fake-openai-server.ts --port 4011 --tokens-ms 20 [--host 127.0.0.1]
//        [--api-key sk-test] [--dimensions 64]
// prints `listening http://127.0.0.1:4011/v1`; another process scripts it with
//   POST /__fake/script  (body: a Scenario)   POST /__fake/reset   GET /__fake/state
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";

export type Endpoint = "chat" | "embeddings" | "rerank";

/** What the next request to `endpoint` (default "chat") does. */
export type Scenario = { endpoint?: Endpoint } & (
  | { kind: "ok"; delayMs?: number } // the default behaviour (embeddings: answered after delayMs)
  | { kind: "stream"; tokens: string[]; tokenMs?: number; finishReason?: string }
  | { kind: "fail"; status: number; body?: unknown }
  | { kind: "json"; body: unknown } // 200 with this exact body (shape tests)
  | { kind: "stall" } // headers, then silence until the client leaves
  | { kind: "cut"; afterTokens?: number; tokens?: string[] } // socket destroyed mid-answer
  | { kind: "malformed"; afterTokens?: number; tokens?: string[] } // one chunk is not JSON
  // One round of tool calling (streamed or not, as asked): the assistant asks for these calls. `arguments`
  // objects are sent as JSON text; a string is sent as is (to test malformed arguments).
  | { kind: "tool_calls"; calls: Array<{ name: string; arguments: unknown; id?: string }>; text?: string }
  // A chat-model rerank reply: each listed passage scores the value of the first `byText` key it
  // contains, else `otherwise` (default 0).
  | { kind: "scores"; byText: Record<string, number>; otherwise?: number }
);

export interface RecordedRequest {
  endpoint: Endpoint | "other";
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests inspect arbitrary JSON
  body: any;
  /** Date.now() when the body was received. */
  at: number;
}

export interface Cancellation {
  endpoint: Endpoint | "other";
  requestIndex: number;
  /** Date.now() when the server saw the client go away. */
  at: number;
}

export interface FakeOpenAIOptions {
  port?: number;
  host?: string;
  /** Delay between streamed tokens (default 0). */
  tokenMs?: number;
  /** When set, every /v1 request needs `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string;
  /** Embedding size when the request names none (default 64). */
  dimensions?: number;
  defaults?: Partial<Record<Endpoint, Scenario>>;
}

export interface FakeOpenAI {
  /** Ends in /v1, like a provider's base URL. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Client disconnects before the response was complete. */
  readonly cancellations: number;
  /** TCP connections accepted so far (keep-alive reuse shows as fewer connections than requests). */
  readonly connections: number;
  cancellationLog: Cancellation[];
  /** Queues a one-shot scenario for the next request to its endpoint. */
  script(next: Scenario): void;
  setDefault(scenario: Scenario): void;
  reset(): void;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Deterministic model behaviour (exported so tests can compute expected outputs)

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Signed hashing of character bigrams, L2-normalized: texts sharing bigrams point the same way. */
export function fakeEmbedding(text: string, dimensions = 64): number[] {
  const chars = Array.from(text.toLowerCase().replace(/\s+/g, " ").trim());
  const grams = chars.length < 2 ? chars : chars.slice(1).map((c, i) => chars[i] + c);
  const v = new Array<number>(dimensions).fill(0);
  for (const g of grams) {
    const h = fnv1a(g);
    v[h % dimensions]! += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...v);
  if (norm === 0) return v.map((_, i) => (i === 0 ? 1 : 0));
  return v.map((x) => x / norm);
}

export function cosine(a: number[], b: number[]): number {
  return a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
}

type Msg = { role?: string; content?: unknown };

function textOf(m: Msg): string {
  if (typeof m.content === "string") return m.content;
  if (Array.isArray(m.content)) return m.content.map((p) => (p as { text?: string })?.text ?? "").join("\n");
  return "";
}

const CJK = /[\u3000-\u9fff\uff00-\uffef]/;

/**
 * The default answer: quotes the longest passage line of reference [1] (searched in the last
 * user message first, then the other messages) and cites it, so it is grounded-shaped; with no
 * reference block it gives the SPEC's refusal sentence.
 */
export function fakeGroundedReply(messages: Msg[]): string {
  const ordered = [...messages].reverse().sort((a, b) => Number(b.role === "user") - Number(a.role === "user"));
  for (const m of ordered) {
    const block = /\[1\]([\s\S]*?)(?=\[2\]|$)/.exec(textOf(m))?.[1];
    if (!block) continue;
    const lines = block
      .split(/\r?\n/)
      .map((l) => l.replace(/^[\s\]:·|>-]+/, "").trim())
      .filter((l) => l && !/^(```|<\/?[\w-]+>)/.test(l));
    // The marker line usually carries metadata (file, page); prefer the passage below it.
    const body = lines.length > 1 ? lines.slice(1) : lines;
    const best = body.reduce((a, b) => (b.length > a.length ? b : a), "");
    if (!best) continue;
    const quote = Array.from(best).slice(0, 60).join("").trim();
    return CJK.test(quote) ? `根据参考资料，“${quote}”[1]。` : `According to the references, "${quote}" [1].`;
  }
  return "当前知识库未检索到足够依据。";
}

/**
 * The KB evaluation's question writer (lib/retrieval/evaluation/generate.ts): a question built
 * from the passage's opening words, so a test can tell which passage it was drafted from.
 */
export function fakeDraftQuestion(messages: Msg[]): string | null {
  if (!messages.some((m) => m.role === "system" && textOf(m).startsWith("You write evaluation questions"))) return null;
  const passage = textOf([...messages].reverse().find((m) => m.role === "user") ?? {}).replace(/^Passage:\s*/, "");
  const words = passage.split(/\s+/).filter(Boolean).slice(0, 6).join(" ");
  return CJK.test(words) ? `关于“${Array.from(passage.trim()).slice(0, 12).join("")}”，资料怎么说？` : `What does the document say about "${words}"?`;
}

type ToolMsg = Msg & { tool_calls?: Array<{ function?: { name?: string } }> };

/** The JSON a tool message carries (the app fences it between markers). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a tool result of any tool
function toolJson(m: Msg): any {
  const t = textOf(m);
  const start = t.indexOf("{");
  const end = t.lastIndexOf("}");
  if (start === -1 || end <= start) return null;
  try {
    return JSON.parse(t.slice(start, end + 1));
  } catch {
    return null;
  }
}

/** The default agent: search for the question, then read around the best hit, then answer. */
export function fakeAgentPlan(messages: Msg[]): { calls: Array<{ name: string; arguments: unknown; id?: string }>; text: string | null } | null {
  const toolMsgs = messages.filter((m) => m.role === "tool");
  if (toolMsgs.length === 0) {
    const question = textOf([...messages].reverse().find((m) => m.role === "user") ?? {});
    return { calls: [{ name: "knowledge_search", arguments: { queries: [question.slice(0, 200)], top_k: 5 } }], text: null };
  }
  const lastCall = [...messages].reverse().find((m) => m.role === "assistant" && (m as ToolMsg).tool_calls?.length) as ToolMsg | undefined;
  if (lastCall?.tool_calls?.[0]?.function?.name === "knowledge_search") {
    const best = toolJson(toolMsgs.at(-1)!)?.hits?.[0];
    if (best?.file_id) {
      return { calls: [{ name: "list_knowledge_chunks", arguments: { file_id: best.file_id, offset: Math.max(0, Number(best.chunk_index) - 2), limit: 5 } }], text: null };
    }
  }
  return null;
}

/** The final answer: quotes the first search hit that has a `ref` and cites it. */
export function fakeAgentAnswer(messages: Msg[]): string {
  for (const m of messages.filter((x) => x.role === "tool")) {
    const json = toolJson(m);
    const item = (json?.hits ?? json?.chunks ?? []).find((h: { ref?: number | null }) => typeof h?.ref === "number");
    if (!item) continue;
    const quote = Array.from(String(item.text)).slice(0, 60).join("").trim();
    return CJK.test(quote) ? `根据参考资料，“${quote}”[${item.ref}]。` : `According to the references, "${quote}" [${item.ref}].`;
  }
  return "当前知识库未检索到足够依据。";
}

/** CJK one character per token, other text one word (with its leading space) per token. */
export function tokenize(text: string): string[] {
  return text.match(/\s*(?:[\u3000-\u9fff\uff00-\uffef]|[^\s\u3000-\u9fff\uff00-\uffef]+)/gu) ?? [];
}

// ---------------------------------------------------------------------------------------------
// Server

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function endpointOf(p: string): Endpoint | "other" {
  if (p === "/v1/chat/completions") return "chat";
  if (p === "/v1/embeddings") return "embeddings";
  if (p === "/v1/rerank") return "rerank";
  return "other";
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json" }).end(text);
}

export async function startFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const dims = opts.dimensions ?? 64;
  const queues: Record<Endpoint, Scenario[]> = { chat: [], embeddings: [], rerank: [] };
  const defaults: Partial<Record<Endpoint, Scenario>> = { ...opts.defaults };
  const requests: RecordedRequest[] = [];
  const cancellationLog: Cancellation[] = [];
  let closing = false;

  const nextScenario = (ep: Endpoint): Scenario => queues[ep].shift() ?? defaults[ep] ?? { kind: "ok" };
  const script = (s: Scenario) => queues[s.endpoint ?? "chat"].push(s);
  const reset = () => {
    for (const q of Object.values(queues)) q.length = 0;
    for (const k of Object.keys(defaults)) delete defaults[k as Endpoint];
    Object.assign(defaults, opts.defaults);
    requests.length = 0;
    cancellationLog.length = 0;
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    let raw = "";
    for await (const c of req) raw += c;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let body: any = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      return sendJson(res, 400, { error: { message: "request body is not JSON" } });
    }

    if (url.pathname.startsWith("/__fake/")) return control(url.pathname, req.method ?? "GET", body, res);

    const endpoint = endpointOf(url.pathname);
    const requestIndex = requests.push({
      endpoint,
      method: req.method ?? "GET",
      path: url.pathname,
      headers: req.headers,
      body,
      at: Date.now(),
    }) - 1;
    // `cut` destroys the socket itself; that is not the client leaving.
    let serverCut = false;
    let closed = false;
    res.on("close", () => {
      closed = true;
      if (!res.writableEnded && !serverCut && !closing) cancellationLog.push({ endpoint, requestIndex, at: Date.now() });
    });

    if (opts.apiKey) {
      const auth = req.headers.authorization ?? "";
      if (auth !== `Bearer ${opts.apiKey}`) {
        // Echoes the presented key, as some providers do, so clients' redaction is tested.
        return sendJson(res, 401, {
          error: { message: `Incorrect API key provided: ${auth.replace(/^Bearer /, "")}`, code: "invalid_api_key" },
        });
      }
    }
    if (req.method !== "POST" || endpoint === "other") return sendJson(res, 404, { error: { message: "not found" } });

    const scenario = nextScenario(endpoint);
    // Destroying at once would discard what was written but not yet flushed; let it reach the client.
    const cut = () => {
      serverCut = true;
      setTimeout(() => res.socket?.destroy(), 20);
    };
    switch (scenario.kind) {
      case "fail":
        return sendJson(res, scenario.status, scenario.body ?? { error: { message: `scripted failure ${scenario.status}` } });
      case "json":
        return sendJson(res, 200, scenario.body);
      case "stall":
        res.writeHead(200, { "content-type": body?.stream ? "text/event-stream" : "application/json" });
        res.flushHeaders();
        return;
    }
    if (endpoint === "embeddings") {
      if (scenario.kind === "cut") {
        res.writeHead(200, { "content-type": "application/json" }).write('{"data":[{"index":0,"embed');
        return cut();
      }
      if (scenario.kind === "malformed") return sendJson(res, 200, '{"data": [oops');
      // A slow provider: keeps a job in its embedding stage for a while (multi-instance test).
      if (scenario.kind === "ok" && scenario.delayMs) await sleep(scenario.delayMs);
      const inputs: string[] = Array.isArray(body?.input) ? body.input : [String(body?.input ?? "")];
      const d = Number(body?.dimensions) || dims;
      const tokens = inputs.reduce((n, s) => n + Math.ceil(s.length / 4), 0);
      return sendJson(res, 200, {
        object: "list",
        model: body?.model,
        data: inputs.map((s, index) => ({ object: "embedding", index, embedding: fakeEmbedding(s, d) })),
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    }
    if (endpoint === "rerank") {
      if (scenario.kind === "cut") return cut();
      if (scenario.kind === "malformed") return sendJson(res, 200, "{results: nope");
      const docs: string[] = (body?.documents ?? []).map((d: unknown) =>
        typeof d === "string" ? d : String((d as { text?: string })?.text ?? ""),
      );
      const q = fakeEmbedding(String(body?.query ?? ""), dims);
      const results = docs
        .map((d, index) => ({ index, relevance_score: Math.max(0, cosine(q, fakeEmbedding(d, dims))) }))
        .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
        .slice(0, Number(body?.top_n) || docs.length);
      return sendJson(res, 200, { model: body?.model, results });
    }

    // chat
    const messages: Msg[] = Array.isArray(body?.messages) ? body.messages : [];
    // Tool calling (agent mode): a scripted round, or by default a small deterministic agent
    // that searches, reads around the best hit, then answers citing that hit's `ref`.
    // Rerank with the chat model (the app's prompt, lib/models/chat-rerank.ts): by default one
    // score per listed passage from the bigram cosine to the query, 0-10; tests script others.
    if (!body?.tools && (scenario.kind === "ok" || scenario.kind === "scores") && textOf(messages[0] ?? {}).startsWith("You score how well passages")) {
      const user = textOf(messages[1] ?? {});
      const query = /^Query: (.*)$/m.exec(user)?.[1] ?? "";
      const passages = [...user.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => m[2]!);
      const q = fakeEmbedding(query, dims);
      const scripted = scenario.kind === "scores" ? scenario : null;
      const scores = passages.map((p) =>
        scripted
          ? (Object.entries(scripted.byText).find(([k]) => p.includes(k))?.[1] ?? scripted.otherwise ?? 0)
          : Math.round(Math.max(0, cosine(q, fakeEmbedding(p, dims))) * 10),
      );
      return sendJson(res, 200, {
        id: `chatcmpl-fake-${requestIndex}`,
        object: "chat.completion",
        created: 0,
        model: body?.model ?? "fake",
        choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify({ scores }) }, finish_reason: "stop" }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      });
    }
    // Streamed like a provider when the request asks (the app streams every round): tool calls
    // as pieces (id and name first, the arguments' JSON split in two), text token by token.
    // A `stream` scenario on a tools request is a scripted answer round (slow tokens: stop tests).
    if (Array.isArray(body?.tools) && (scenario.kind === "ok" || scenario.kind === "tool_calls" || scenario.kind === "stream")) {
      const base = { id: `chatcmpl-fake-${requestIndex}`, object: "chat.completion", created: 0, model: body?.model ?? "fake" };
      const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
      const plan =
        scenario.kind === "tool_calls" ? { calls: scenario.calls, text: scenario.text ?? null } : scenario.kind === "stream" || body.tool_choice === "none" ? null : fakeAgentPlan(messages);
      const tool_calls = (plan?.calls ?? []).map((c, i) => ({
        id: c.id ?? `call_${requestIndex}_${i}`,
        type: "function",
        function: { name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments) },
      }));
      const answer = tool_calls.length ? (plan?.text ?? null) : scenario.kind === "stream" ? scenario.tokens.join("") : fakeAgentAnswer(messages);
      if (!body?.stream) {
        const message = tool_calls.length ? { role: "assistant", content: answer, tool_calls } : { role: "assistant", content: answer };
        return sendJson(res, 200, { ...base, choices: [{ index: 0, message, finish_reason: tool_calls.length ? "tool_calls" : "stop" }], usage });
      }
      const chunk = (delta: object, finish: string | null = null) =>
        `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(chunk({ role: "assistant", content: null }));
      const tokenMs = (scenario.kind === "stream" ? scenario.tokenMs : undefined) ?? opts.tokenMs ?? 0;
      const textTokens = scenario.kind === "stream" ? scenario.tokens : answer ? tokenize(answer) : [];
      // A tool round's calls come first (its text, if any, after them).
      for (const [index, c] of tool_calls.entries()) {
        const a = c.function.arguments;
        const cutAt = Math.floor(a.length / 2);
        res.write(chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.function.name, arguments: a.slice(0, cutAt) } }] }));
        res.write(chunk({ tool_calls: [{ index, function: { arguments: a.slice(cutAt) } }] }));
      }
      for (const t of textTokens) {
        if (tokenMs > 0) await sleep(tokenMs);
        if (closed) return;
        res.write(chunk({ content: t }));
      }
      res.write(chunk({}, tool_calls.length ? "tool_calls" : (scenario.kind === "stream" ? (scenario.finishReason ?? "stop") : "stop")));
      if (body?.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
      return void res.end("data: [DONE]\n\n");
    }
    const tokens = ("tokens" in scenario ? scenario.tokens : undefined) ?? tokenize(fakeDraftQuestion(messages) ?? fakeGroundedReply(messages));
    const finishReason = scenario.kind === "stream" ? (scenario.finishReason ?? "stop") : "stop";
    const promptTokens = messages.reduce((n, m) => n + Math.ceil(textOf(m).length / 4), 0);
    const usage = { prompt_tokens: promptTokens, completion_tokens: tokens.length, total_tokens: promptTokens + tokens.length };
    const base = { id: `chatcmpl-fake-${requestIndex}`, created: 0, model: body?.model ?? "fake" };

    if (!body?.stream) {
      if (scenario.kind === "cut") {
        res.writeHead(200, { "content-type": "application/json" }).write('{"choices":[{"mess');
        return cut();
      }
      if (scenario.kind === "malformed") return sendJson(res, 200, '{"choices": [oops');
      return sendJson(res, 200, {
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: tokens.join("") }, finish_reason: finishReason }],
        usage,
      });
    }

    const tokenMs = (scenario.kind === "stream" ? scenario.tokenMs : undefined) ?? opts.tokenMs ?? 0;
    const stopAt = scenario.kind === "cut" || scenario.kind === "malformed" ? (scenario.afterTokens ?? Math.floor(tokens.length / 2)) : -1;
    const chunk = (choice: object, extra: object = {}) =>
      `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [choice], ...extra })}\n\n`;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    // A comment first: real providers send keep-alives, and clients must skip them.
    res.write(": fake-openai\n\n");
    res.write(chunk({ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }));
    for (let i = 0; i <= tokens.length; i++) {
      if (i === Math.min(stopAt, tokens.length)) {
        if (scenario.kind === "cut") return cut();
        res.write('data: {"choices":[{"delta":{"content":"x"}\n\n'); // truncated JSON
      }
      if (i === tokens.length) break;
      if (tokenMs > 0) await sleep(tokenMs);
      if (closed) return;
      res.write(chunk({ index: 0, delta: { content: tokens[i] }, finish_reason: null }));
    }
    res.write(chunk({ index: 0, delta: {}, finish_reason: finishReason }));
    if (body?.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
    res.end("data: [DONE]\n\n");
  });

  function control(p: string, method: string, body: unknown, res: http.ServerResponse): void {
    if (p === "/__fake/script" && method === "POST") {
      script(body as Scenario);
      return void res.writeHead(204).end();
    }
    if (p === "/__fake/reset" && method === "POST") {
      reset();
      return void res.writeHead(204).end();
    }
    if (p === "/__fake/state") return sendJson(res, 200, { requests: requests.length, cancellations: cancellationLog.length, cancellationLog });
    sendJson(res, 404, { error: { message: "unknown control path" } });
  }

  let connections = 0;
  server.on("connection", () => void connections++);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;

  return {
    baseUrl: `http://${host}:${addr.port}/v1`,
    requests,
    get cancellations() {
      return cancellationLog.length;
    },
    get connections() {
      return connections;
    },
    cancellationLog,
    script,
    setDefault: (s) => void (defaults[s.endpoint ?? "chat"] = s),
    reset,
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// CLI

export function parseCliArgs(argv: string[]): FakeOpenAIOptions {
  const opts: FakeOpenAIOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    const num = () => {
      const n = Number(value);
      if (value === undefined || !Number.isFinite(n)) throw new Error(`${argv[i]} needs a number`);
      i++;
      return n;
    };
    switch (argv[i]) {
      case "--port": opts.port = num(); break;
      case "--tokens-ms": opts.tokenMs = num(); break;
      case "--dimensions": opts.dimensions = num(); break;
      case "--host": opts.host = value; i++; break;
      case "--api-key": opts.apiKey = value; i++; break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  return opts;
}

const isMain = !!process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isMain) {
  const fake = await startFakeOpenAI(parseCliArgs(process.argv.slice(2)));
  console.log(`listening ${fake.baseUrl}`);
  const stop = () => void fake.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
