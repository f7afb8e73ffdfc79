// OpenAI-compatible chat client (SPEC §10). Every failure of a configured model becomes
// AppError("MODEL_UNAVAILABLE") — the assistant must report it, never silently switch engines —
// while an abort through `signal` surfaces as an AbortError so a user's stop is not an outage.
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { ModelCall, endpointUrl, modelUnavailableMessage } from "./http";
import { readSseEvents, SseEventTooLarge } from "./sse";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type ChatStreamEvent =
  | { type: "delta"; text: string }
  | { type: "usage"; usage: ChatUsage }
  | { type: "finish"; reason: string };

export interface ChatRequest {
  baseUrl: string;
  apiKey?: string;
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
  /** Merged over the thinking-off extras; cannot override model, messages or streaming fields. */
  extraBody?: Record<string, unknown>;
  /** Streaming: the longest silence tolerated; non-streaming: the whole call. */
  timeoutMs?: number;
}

export interface ChatCompletion {
  text: string;
  usage: ChatUsage | null;
  finishReason: string;
}

/** Provider-specific request fields that turn reasoning off (SPEC §10: answers must start fast). */
export function thinkingOffExtras(model: string, baseUrl: string): Record<string, unknown> {
  const name = model.trim().toLowerCase();
  let host = "";
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    // an invalid URL fails later, at request time
  }
  // DashScope takes enable_thinking for every hybrid model it hosts, DeepSeek ones included.
  if (host.includes("dashscope") || name.startsWith("qwen")) return { enable_thinking: false };
  if (name.startsWith("deepseek") || host.endsWith("deepseek.com")) return { thinking: { type: "disabled" } };
  return {};
}

export function buildChatBody(req: ChatRequest, stream: boolean): Record<string, unknown> {
  return {
    ...thinkingOffExtras(req.model, req.baseUrl),
    ...req.extraBody,
    model: req.model,
    messages: req.messages,
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.maxTokens !== undefined ? { max_tokens: req.maxTokens } : {}),
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  };
}

const usageSchema = z.object({
  prompt_tokens: z.number().nonnegative().optional(),
  completion_tokens: z.number().nonnegative().optional(),
  total_tokens: z.number().nonnegative().optional(),
});

const providerError = z.object({ message: z.string().optional() }).or(z.string());

const chunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z.object({ content: z.string().nullish() }).nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: usageSchema.nullish(),
  error: providerError.nullish(),
});

const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: usageSchema.nullish(),
});

function normalizeUsage(u: z.infer<typeof usageSchema>): ChatUsage {
  const prompt = u.prompt_tokens ?? 0;
  const completion = u.completion_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: u.total_tokens ?? prompt + completion };
}

export interface ParsedChunk {
  text: string;
  finishReason: string | null;
  usage: ChatUsage | null;
}

/** Parses one `data:` payload of a chat stream; throws Error with a short reason when malformed. */
export function parseChatChunk(data: string): ParsedChunk {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new Error("sent a stream chunk that is not JSON");
  }
  const parsed = chunkSchema.safeParse(json);
  if (!parsed.success) throw new Error("sent a stream chunk of an unexpected shape");
  const { choices, usage, error } = parsed.data;
  if (error) {
    throw new Error(`reported an error mid-stream: ${typeof error === "string" ? error : (error.message ?? "unknown")}`);
  }
  const choice = choices?.[0];
  return {
    text: choice?.delta?.content ?? "",
    finishReason: choice?.finish_reason ?? null,
    usage: usage ? normalizeUsage(usage) : null,
  };
}

function chatCall(req: ChatRequest): ModelCall {
  return new ModelCall({
    label: "Chat model",
    url: endpointUrl(req.baseUrl, "chat/completions"),
    apiKey: req.apiKey,
    signal: req.signal,
    timeoutMs: req.timeoutMs,
    // The message names the endpoint and quotes its reply: log only. Users see the status.
    makeError: (message, details) =>
      new AppError("MODEL_UNAVAILABLE", message, details, { publicMessage: modelUnavailableMessage("answer", details.status) }),
  });
}

/**
 * Streams a chat completion. Yields deltas as they arrive, `usage` when the provider reports it,
 * and `finish` last. A stream that ends before [DONE] or a finish_reason is a failure: the
 * caller keeps the deltas it already has and reports MODEL_UNAVAILABLE.
 */
export async function* streamChat(req: ChatRequest): AsyncGenerator<ChatStreamEvent> {
  const call = chatCall(req);
  try {
    const res = await call.post(buildChatBody(req, true), "text/event-stream");
    let finishReason: string | null = null;
    let done = false;
    try {
      for await (const ev of readSseEvents(res.body, () => call.touch())) {
        // Read on after [DONE] to the response's end, so the connection is pooled (expectEnd).
        if (done) continue;
        if (ev.data === "[DONE]") {
          done = true;
          call.expectEnd();
          continue;
        }
        let chunk: ParsedChunk;
        try {
          chunk = parseChatChunk(ev.data);
        } catch (e) {
          throw call.fail(`${(e as Error).message} (${call.endpoint}).`);
        }
        if (chunk.text) yield { type: "delta", text: chunk.text };
        if (chunk.usage) yield { type: "usage", usage: chunk.usage };
        finishReason = chunk.finishReason ?? finishReason;
      }
    } catch (e) {
      // After [DONE] the answer is whole: a response that did not end in time was cut, and a
      // caller's abort has nothing left to cancel.
      if (!done) {
        if (e instanceof SseEventTooLarge && !req.signal?.aborted) throw call.fail(`${e.message} (${call.endpoint}).`);
        throw call.classify(e);
      }
    }
    // Some providers omit [DONE] after the finish chunk; a finish_reason is proof enough.
    if (!done && finishReason === null) {
      throw call.fail(`stream ended before the answer was complete (${call.endpoint}).`);
    }
    yield { type: "finish", reason: finishReason ?? "stop" };
  } finally {
    call.dispose();
  }
}

/** One non-streaming completion (query rewrite, related questions). */
export async function completeChat(req: ChatRequest): Promise<ChatCompletion> {
  const call = chatCall(req);
  try {
    const res = await call.post(buildChatBody(req, false), "application/json");
    const parsed = completionSchema.safeParse(await call.readJson(res));
    if (!parsed.success) throw call.fail(`returned a completion of an unexpected shape (${call.endpoint}).`);
    const choice = parsed.data.choices[0]!;
    return {
      text: choice.message.content ?? "",
      usage: parsed.data.usage ? normalizeUsage(parsed.data.usage) : null,
      finishReason: choice.finish_reason ?? "stop",
    };
  } finally {
    call.dispose();
  }
}
