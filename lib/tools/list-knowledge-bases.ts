import "server-only";
import { z } from "zod";
import { toolDb } from "./common";
import type { ToolDefinition } from "./types";

const input = z.object({}).strict();

const knowledgeBase = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  file_count: z.number().int(),
  ready_file_count: z.number().int(),
  indexing_file_count: z.number().int(),
  failed_file_count: z.number().int(),
  chunk_count: z.number().int(),
  status: z.enum(["empty", "ready", "indexing", "failed"]),
});

const output = z.object({ knowledge_bases: z.array(knowledgeBase), reason: z.string().nullable() });
export type ListKnowledgeBasesOutput = z.infer<typeof output>;

const INDEXING = ["queued", "parsing", "chunking", "embedding", "indexing"];

interface Row {
  id: string;
  name: string;
  description: string;
  file_count: bigint | number;
  ready_file_count: bigint | number;
  indexing_file_count: bigint | number;
  failed_file_count: bigint | number;
  chunk_count: bigint | number | null;
}

// Same precedence as the assistant's bootstrap status (SPEC §6), without "disabled".
function statusOf(r: { file_count: number; ready_file_count: number; indexing_file_count: number }) {
  if (r.file_count === 0) return "empty" as const;
  if (r.ready_file_count > 0) return "ready" as const;
  if (r.indexing_file_count > 0) return "indexing" as const;
  return "failed" as const;
}

export const listKnowledgeBasesTool: ToolDefinition<z.infer<typeof input>, ListKnowledgeBasesOutput> = {
  name: "list_knowledge_bases",
  description:
    "List the knowledge bases you can read, with their ids, names, file and chunk counts and status " +
    "(ready = searchable). Call this first when you need knowledge_base_ids for the other tools.",
  inputSchema: input,
  outputSchema: output,
  async run(_input, ctx) {
    const ids = [...ctx.readableKnowledgeIds];
    if (ids.length === 0) return { knowledge_bases: [], reason: "You cannot read any knowledge base." };
    const db = await toolDb();
    // Chunk counts come from the files' own counters: no scan of the chunks table.
    const rows = await db.$queryRawUnsafe<Row[]>(
      `SELECT k.id, k.name, k.description,
              COUNT(f.id) AS file_count,
              COUNT(f.id) FILTER (WHERE f.status = 'success') AS ready_file_count,
              COUNT(f.id) FILTER (WHERE f.status = ANY($2::text[])) AS indexing_file_count,
              COUNT(f.id) FILTER (WHERE f.status = 'failed') AS failed_file_count,
              COALESCE(SUM(f.chunk_count) FILTER (WHERE f.status = 'success'), 0) AS chunk_count
         FROM knowledges k
         LEFT JOIN knowledge_files f ON f.knowledge_id = k.id
        WHERE k.id = ANY($1::text[])
        GROUP BY k.id
        ORDER BY k.created_at ASC, k.id ASC`,
      ids,
      INDEXING,
    );
    const knowledge_bases = rows.map((r) => {
      const counts = {
        file_count: Number(r.file_count),
        ready_file_count: Number(r.ready_file_count),
        indexing_file_count: Number(r.indexing_file_count),
        failed_file_count: Number(r.failed_file_count),
      };
      return { id: r.id, name: r.name, description: r.description, ...counts, chunk_count: Number(r.chunk_count ?? 0), status: statusOf(counts) };
    });
    return { knowledge_bases, reason: knowledge_bases.length ? null : "You cannot read any knowledge base." };
  },
  summarize(out) {
    return { count: out.knowledge_bases.length, summary: `${out.knowledge_bases.length} knowledge bases` };
  },
};
