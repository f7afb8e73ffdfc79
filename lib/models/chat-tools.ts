// OpenAI-compatible chat completion with `tools` (issue 17, agent answer mode). Non-streaming:
// each round of the agent loop is one request whose answer is either tool calls or the final
// text. Failures are MODEL_UNAVAILABLE like every configured-model failure (SPEC §10); an abort
// through `signal` stays an AbortError.
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { buildChatBody, type ChatUsage } from "./chat";
import { ModelCall, endpointUrl } from "./http";

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
  timeoutMs?: number;
}

export interface ToolRoundResult {
  text: string;
  toolCalls: ToolCallRequest[];
  usage: ChatUsage | null;
  finishReason: string;
}

const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z
            .array(z.object({ id: z.string().max(200), type: z.string().optional(), function: z.object({ name: z.string().max(200), arguments: z.string().nullish() }) }))
            .max(32)
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional(), total_tokens: z.number().optional() }).nullish(),
});

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
    const base = buildChatBody({ baseUrl: req.baseUrl, model: req.model, messages: [], temperature: req.temperature, maxTokens: req.maxTokens }, false);
    const body = { ...base, messages: req.messages, tools: req.tools, tool_choice: req.toolChoice ?? "auto", parallel_tool_calls: true };
    const res = await call.post(body, "application/json");
    const parsed = completionSchema.safeParse(await call.readJson(res));
    if (!parsed.success) throw call.fail(`returned a completion of an unexpected shape (${call.endpoint}).`);
    const choice = parsed.data.choices[0]!;
    const u = parsed.data.usage;
    return {
      text: choice.message.content ?? "",
      toolCalls: (choice.message.tool_calls ?? []).map((t) => ({ id: t.id, name: t.function.name, arguments: t.function.arguments ?? "{}" })),
      usage: u
        ? { prompt_tokens: u.prompt_tokens ?? 0, completion_tokens: u.completion_tokens ?? 0, total_tokens: u.total_tokens ?? (u.prompt_tokens ?? 0) + (u.completion_tokens ?? 0) }
        : null,
      finishReason: choice.finish_reason ?? "stop",
    };
  } finally {
    call.dispose();
  }
}
