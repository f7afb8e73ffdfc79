import "server-only";
import { z, type ZodError } from "zod";
import { AppError, isAppError, type ErrorCode } from "@/lib/errors";
import { getDocumentInfoTool } from "./get-document-info";
import { grepChunksTool } from "./grep-chunks";
import { knowledgeSearchTool } from "./knowledge-search";
import { listKnowledgeBasesTool } from "./list-knowledge-bases";
import { listKnowledgeChunksTool } from "./list-knowledge-chunks";
import { queryKnowledgeGraphTool } from "./query-knowledge-graph";
import type { ToolContext, ToolDefinition } from "./types";

// The one list of agent tools (SPEC §9). The MCP route and the assistant's agent mode both read
// it, so adding a tool is one import and one line below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each tool has its own I/O types
type AnyTool = ToolDefinition<any, any>;

export const TOOLS: readonly AnyTool[] = [
  listKnowledgeBasesTool,
  knowledgeSearchTool,
  grepChunksTool,
  getDocumentInfoTool,
  listKnowledgeChunksTool,
  queryKnowledgeGraphTool,
];

const byName = new Map(TOOLS.map((t) => [t.name, t]));

export function getTool(name: string): AnyTool | undefined {
  return byName.get(name);
}

/** Per-call bound (AGENT and MCP alike); a tool that overruns ends with TOOL_TIMEOUT. */
export const DEFAULT_TOOL_TIMEOUT_MS = 15_000;

/** The JSON Schema of a tool's input, as MCP `tools/list` and OpenAI `tools` carry it. */
export function inputJsonSchema(tool: AnyTool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.inputSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

export function outputJsonSchema(tool: AnyTool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.outputSchema, { io: "output", unrepresentable: "any" }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

export type ToolCallResult =
  | { status: "ok"; name: string; output: unknown; count: number; summary: string; durationMs: number }
  | { status: "error"; name: string; code: ErrorCode; message: string; durationMs: number };

/** Validation issues as one message an agent can act on: "queries.0: each query is too long …". */
export function describeIssues(error: ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => {
      const where = i.path.length ? i.path.join(".") : "arguments";
      if (i.code === "unrecognized_keys") return `unknown argument(s): ${i.keys.join(", ")}`;
      return `${where}: ${i.message}`;
    })
    .join("; ");
}

/**
 * Validates the arguments with the tool's own schema, runs it under a timeout and the caller's
 * signal, and turns every failure into a result the caller can hand back (a tool call never
 * throws: an agent gets the message and can correct itself). Aborts of the caller still throw.
 */
export async function callTool(
  name: string,
  rawArgs: unknown,
  ctx: ToolContext,
  opts: { timeoutMs?: number } = {},
): Promise<ToolCallResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const tool = getTool(name);
  if (!tool) {
    return { status: "error", name, code: "TOOL_NOT_FOUND", message: `No tool named "${name.slice(0, 64)}". Available: ${TOOLS.map((t) => t.name).join(", ")}.`, durationMs: took() };
  }
  const parsed = tool.inputSchema.safeParse(rawArgs ?? {});
  if (!parsed.success) return { status: "error", name, code: "INVALID_PARAMS", message: describeIssues(parsed.error), durationMs: took() };
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  try {
    const output = await Promise.race([
      tool.run(parsed.data, { ...ctx, signal }),
      new Promise<never>((_, reject) => {
        const fail = () => reject(signal.reason);
        if (signal.aborted) fail();
        else signal.addEventListener("abort", fail, { once: true });
      }),
    ]);
    const { count, summary } = tool.summarize(output);
    return { status: "ok", name, output, count, summary, durationMs: took() };
  } catch (e) {
    if (ctx.signal.aborted) throw ctx.signal.reason ?? e;
    if (timeout.aborted) return { status: "error", name, code: "TOOL_TIMEOUT", message: `${name} did not finish in time; try a narrower request.`, durationMs: took() };
    if (isAppError(e)) return { status: "error", name, code: e.code, message: e.message, durationMs: took() };
    console.error(`[tools] ${name} failed`, e);
    return { status: "error", name, code: "INTERNAL_ERROR", message: new AppError("INTERNAL_ERROR").message, durationMs: took() };
  }
}
