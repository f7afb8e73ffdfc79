import "server-only";
import { z } from "zod";
import { getRawDb, type RawDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { ToolContext } from "./types";

// Pieces every tool shares: the input primitives (so each limit has one wording the agent can
// act on) and the access-target checks (a foreign or unknown id looks missing, SPEC §12).

const NUL = /\u0000/;

export const toolId = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(64, "is too long for an id (at most 64 characters)")
  .regex(/^[A-Za-z0-9_-]+$/, "must be an id as returned by list_knowledge_bases or a search result");

/** Free text from an agent: trimmed, bounded, no NUL (PostgreSQL text cannot hold it). */
export function toolText(max: number, what: string) {
  return z
    .string()
    .trim()
    .min(1, `${what} must not be empty`)
    .max(max, `${what} is too long (at most ${max} characters)`)
    .refine((s) => !NUL.test(s), `${what} must not contain NUL characters`);
}

export const knowledgeBaseIdsField = z
  .array(toolId)
  .max(20, "at most 20 knowledge_base_ids")
  .optional()
  .describe("Knowledge base ids to search (from list_knowledge_bases); omit to search every knowledge base you can read.");

export async function toolDb(): Promise<Pick<RawDb, "$queryRawUnsafe">> {
  return getRawDb();
}

/**
 * The KBs a call may touch: the requested ones, each of which must be among the caller's access
 * targets (else KNOWLEDGE_NOT_FOUND, the same for another user's KB as for a made-up id), or all
 * of the targets when none were requested.
 */
export function resolveKnowledgeIds(requested: readonly string[] | undefined, ctx: ToolContext): string[] {
  if (!requested || requested.length === 0) return [...ctx.readableKnowledgeIds].sort();
  const out = [...new Set(requested)];
  for (const id of out) {
    if (!ctx.readableKnowledgeIds.has(id)) {
      throw new AppError("KNOWLEDGE_NOT_FOUND", `Knowledge base "${id}" was not found. Call list_knowledge_bases for the ids you can read.`);
    }
  }
  return out;
}

export interface ReadyCounts {
  ready: number;
  total: number;
}

/** Files per state over the given KBs: a tool with nothing to search says why instead of "0 hits". */
export async function readyFileCounts(db: Pick<RawDb, "$queryRawUnsafe">, kbIds: string[]): Promise<ReadyCounts> {
  if (kbIds.length === 0) return { ready: 0, total: 0 };
  const [row] = await db.$queryRawUnsafe<{ total: bigint | number; ready: bigint | number }[]>(
    `SELECT COUNT(*) AS total, COUNT(*) FILTER (WHERE status = 'success') AS ready
       FROM knowledge_files WHERE knowledge_id = ANY($1::text[])`,
    kbIds,
  );
  return { ready: Number(row?.ready ?? 0), total: Number(row?.total ?? 0) };
}

export function emptyReason(kbIds: string[], counts: ReadyCounts): string | null {
  if (kbIds.length === 0) return "You cannot read any knowledge base.";
  if (counts.total === 0) return "The knowledge base has no files.";
  if (counts.ready === 0) return "The knowledge base has no searchable (ready) files yet: they are still indexing or failed.";
  return null;
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

/** Short quoted list for summaries: "a", "b" (+2). */
export function quoteList(items: readonly string[], max = 2): string {
  const shown = items.slice(0, max).map((s) => `"${s.length > 30 ? `${s.slice(0, 30)}…` : s}"`);
  return items.length > max ? `${shown.join(", ")} (+${items.length - max})` : shown.join(", ");
}
