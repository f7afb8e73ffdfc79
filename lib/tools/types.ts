import "server-only";
import type { z } from "zod";

// The agent tools' shared shape (SPEC §9, seed 003). Every tool is one module exporting one
// ToolDefinition; lib/tools/registry.ts lists them. The assistant's agent mode and the MCP route
// both go through the registry, so a tool is written once.

/** Who calls, resolved by the server before any tool runs (never from the model or the agent). */
export interface ToolContext {
  userId: string;
  /**
   * Precomputed access targets: the KB ids the caller may read (SPEC §12), already narrowed to
   * a token's KB restriction when the caller is an API token. A tool never reads outside them;
   * an id outside them looks missing.
   */
  readableKnowledgeIds: ReadonlySet<string>;
  signal: AbortSignal;
  /**
   * Set by agent mode when no rerank model is configured: scores passages with the chat model
   * (0..1, in order), or null when that failed. MCP callers never get it.
   */
  rerank?: ((query: string, documents: string[], signal: AbortSignal) => Promise<number[] | null>) | null;
}

export interface ToolResultSummary {
  /** How many items the result holds (hits, documents, chunks, entities). */
  count: number;
  /** One short line for the UI's step list and the SSE `tool_result` event. */
  summary: string;
}

export interface ToolDefinition<I = unknown, O = unknown> {
  /** snake_case, stable: the name agents call. */
  name: string;
  /** What the model reads: what the tool is for and how to use it well. */
  description: string;
  inputSchema: z.ZodType<I>;
  outputSchema: z.ZodType<O>;
  run(input: I, ctx: ToolContext): Promise<O>;
  summarize(output: O): ToolResultSummary;
}
