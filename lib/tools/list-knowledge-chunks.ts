import "server-only";
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { toolDb, toolId } from "./common";
import type { ToolDefinition } from "./types";

const input = z
  .object({
    file_id: toolId.describe("The document to read."),
    offset: z.number().int().min(0, "offset must be 0 or more").max(1_000_000).default(0).describe("First chunk_index to return."),
    limit: z.number().int().min(1, "limit must be at least 1").max(50, "limit must be at most 50").default(10).describe("Chunks to return, 1-50."),
  })
  .strict();

const chunk = z.object({
  chunk_id: z.string(),
  chunk_index: z.number().int(),
  page_start: z.number().int().nullable(),
  page_end: z.number().int().nullable(),
  heading_path: z.string(),
  text: z.string(),
});
const output = z.object({
  file_id: z.string(),
  file_name: z.string(),
  total: z.number().int(),
  offset: z.number().int(),
  chunks: z.array(chunk),
  next_offset: z.number().int().nullable(),
  reason: z.string().nullable(),
});
export type ListKnowledgeChunksInput = z.infer<typeof input>;
export type ListKnowledgeChunksOutput = z.infer<typeof output>;

export const listKnowledgeChunksTool: ToolDefinition<ListKnowledgeChunksInput, ListKnowledgeChunksOutput> = {
  name: "list_knowledge_chunks",
  description:
    "Read a document in order, chunk by chunk (like turning pages): file_id, offset (first chunk_index) and " +
    "limit (1-50). Returns the chunks with index, page range and heading path, the total and next_offset. " +
    "To read around a search hit use offset = chunk_index - 2 and limit 5.",
  inputSchema: input,
  outputSchema: output,
  async run(args, ctx) {
    const db = await toolDb();
    const [file] = await db.$queryRawUnsafe<{ id: string; name: string; status: string }[]>(
      `SELECT id, name, status FROM knowledge_files WHERE id = $1 AND knowledge_id = ANY($2::text[])`,
      args.file_id,
      [...ctx.readableKnowledgeIds],
    );
    if (!file) throw new AppError("FILE_NOT_FOUND", `File "${args.file_id}" was not found. Use file ids from search results or get_document_info.`);
    if (file.status !== "success") {
      return { file_id: file.id, file_name: file.name, total: 0, offset: args.offset, chunks: [], next_offset: null, reason: `The document is not readable yet (status: ${file.status}).` };
    }
    // Both statements use the (file_id, ordinal) unique index.
    const [rows, totals] = await Promise.all([
      db.$queryRawUnsafe<{ id: string; ordinal: number; page_start: number | null; page_end: number | null; heading_path: string; content: string }[]>(
        `SELECT id, ordinal, page_start, page_end, heading_path, content FROM chunks
          WHERE file_id = $1 AND ordinal >= $2 ORDER BY ordinal LIMIT $3`,
        file.id,
        args.offset,
        args.limit,
      ),
      db.$queryRawUnsafe<{ n: bigint | number }[]>(`SELECT COUNT(*) AS n FROM chunks WHERE file_id = $1`, file.id),
    ]);
    const total = Number(totals[0]?.n ?? 0);
    const chunks = rows.map((r) => ({
      chunk_id: r.id,
      chunk_index: Number(r.ordinal),
      page_start: r.page_start,
      page_end: r.page_end,
      heading_path: r.heading_path,
      text: r.content,
    }));
    const last = chunks.at(-1);
    return {
      file_id: file.id,
      file_name: file.name,
      total,
      offset: args.offset,
      chunks,
      next_offset: last && last.chunk_index + 1 < total ? last.chunk_index + 1 : null,
      reason: chunks.length ? null : args.offset >= total ? `offset is past the end: the document has ${total} chunks (0-${Math.max(0, total - 1)}).` : null,
    };
  },
  summarize(out) {
    const first = out.chunks[0]?.chunk_index;
    const last = out.chunks.at(-1)?.chunk_index;
    return { count: out.chunks.length, summary: first == null ? `no chunks of ${out.file_name}` : `${out.file_name} chunks ${first}-${last} of ${out.total}` };
  },
};
