// OpenAI-compatible chat completion with `tools` (issue 17, agent answer mode), streamed: each
// round of the agent loop is one streaming request whose answer is either tool calls or the
// final text, and the final text reaches the caller token by token (`onText`). Failures are
// MODEL_UNAVAILABLE like every configured-model failure (SPEC §10); an abort through `signal`
// stays an AbortError and closes the socket, which cancels the provider's work.
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { buildChatBody, type ChatUsage } from "./chat";
import { ModelCall, endpointUrl } from "./http";
import { readSseEvents, SseEventTooLarge } from "./sse";
export interface ToolCallRequest {
  id: string;
  name: string;
  /** The raw JSON text the model sent (validated by the tool's schema, not here). */
  arguments: string;
}

export type AgentMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }> }
  | { role: "tool"; tool_call_id: string; content: string };

export interface FunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ToolRoundRequest {
  baseUrl: string;
  apiKey?: string;
  model: string;
  messages: AgentMessage[];
  tools: FunctionTool[];
  /** "none" forces a text answer (the last round of a loop out of steps). */
  toolChoice?: "auto" | "none";
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
  /** The longest silence tolerated while the round streams. */
  timeoutMs?: number;
  /**
   * Text of a round that is the answer, as it arrives. A round is the answer when its text
   * comes before any tool call (providers send either text or calls; a text preamble before a
   * call would already be on the user's screen, so such late calls are dropped: `droppedCalls`).
   */
  onText?: (text: string) => void;
}

export interface ToolRoundResult {
  text: string;
  toolCalls: ToolCallRequest[];
  usage: ChatUsage | null;
  finishReason: string;
  /** The text went out through onText: this round is the answer. */
  streamedText: boolean;
  /** Tool calls that arrived after streamed text (not run). */
  droppedCalls: number;
}

const usageSchema = z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional(), total_tokens: z.number().optional() });

const chunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().int().min(0).max(31).optional(),
                  id: z.string().max(200).nullish(),
                  function: z.object({ name: z.string().max(200).nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .max(32)
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: usageSchema.nullish(),
  error: z.object({ message: z.string().optional() }).or(z.string()).nullish(),
});

/** A streamed call's argument text may not grow past this (the tools' own limits are far lower). */
const MAX_ARGUMENT_CHARS = 256 * 1024;

export async function completeToolRound(req: ToolRoundRequest): Promise<ToolRoundResult> {
  const call = new ModelCall({
    label: "Chat model",
    url: endpointUrl(req.baseUrl, "chat/completions"),
    apiKey: req.apiKey,
    signal: req.signal,
    timeoutMs: req.timeoutMs,
    makeError: (message, details) => new AppError("MODEL_UNAVAILABLE", message, details),
  });
  try {
    const base = buildChatBody({ baseUrl: req.baseUrl, model: req.model, messages: [], temperature: req.temperature, maxTokens: req.maxTokens }, true);
    const body = { ...base, messages: req.messages, tools: req.tools, tool_choice: req.toolChoice ?? "auto", parallel_tool_calls: true };
    const res = await call.post(body, "text/event-stream");
    let text = "";
    let streamedText = false;
    let usage: ChatUsage | null = null;
    let finishReason: string | null = null;
    let done = false;
    // Tool calls arrive in pieces keyed by index: the first piece names the id and function,
    // the arguments' JSON text is concatenated.
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    try {
      for await (const ev of readSseEvents(res.body, () => call.touch())) {
        if (done) continue;
        if (ev.data === "[DONE]") {
          done = true;
          call.expectEnd();
          continue;
        }
        let json: unknown;
        try {
          json = JSON.parse(ev.data);
        } catch {
          throw call.fail(`sent a stream chunk that is not JSON (${call.endpoint}).`);
        }
        const parsed = chunkSchema.safeParse(json);
        if (!parsed.success) throw call.fail(`sent a stream chunk of an unexpected shape (${call.endpoint}).`);
        const { choices, usage: u, error } = parsed.data;
        if (error) throw call.fail(`reported an error mid-stream: ${typeof error === "string" ? error : (error.message ?? "unknown")} (${call.endpoint}).`);
        if (u) usage = { prompt_tokens: u.prompt_tokens ?? 0, completion_tokens: u.completion_tokens ?? 0, total_tokens: u.total_tokens ?? (u.prompt_tokens ?? 0) + (u.completion_tokens ?? 0) };
        const choice = choices?.[0];
        if (!choice) continue;
        for (const t of choice.delta?.tool_calls ?? []) {
          const idx = t.index ?? 0;
          const c = calls.get(idx) ?? { id: "", name: "", arguments: "" };
          if (t.id) c.id = t.id;
          if (t.function?.name) c.name += t.function.name;
          if (t.function?.arguments) c.arguments += t.function.arguments;
          if (c.arguments.length > MAX_ARGUMENT_CHARS) throw call.fail(`sent tool arguments longer than ${MAX_ARGUMENT_CHARS} characters (${call.endpoint}).`);
          calls.set(idx, c);
        }
        const piece = choice.delta?.content ?? "";
        if (piece) {
          text += piece;
          if (calls.size === 0 && req.onText) {
            streamedText = true;
            req.onText(piece);
          }
        }
        finishReason = choice.finish_reason ?? finishReason;
      }
    } catch (e) {
      if (!done) {
        if (e instanceof SseEventTooLarge && !req.signal?.aborted) throw call.fail(`${e.message} (${call.endpoint}).`);
        throw call.classify(e);
      }
    }
    if (!done && finishReason === null) throw call.fail(`stream ended before the answer was complete (${call.endpoint}).`);
    const toolCalls = [...calls.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([i, c]) => ({ id: c.id || `call_${i}`, name: c.name, arguments: c.arguments || "{}" }));
    return {
      text,
      toolCalls: streamedText ? [] : toolCalls,
      usage,
      finishReason: finishReason ?? "stop",
      streamedText,
      droppedCalls: streamedText ? toolCalls.length : 0,
    };
  } finally {
    call.dispose();
  }
}
