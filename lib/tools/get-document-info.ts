import "server-only";
import { z } from "zod";
import { toolDb, toolId } from "./common";
import type { ToolDefinition } from "./types";

const input = z
  .object({
    file_ids: z.array(toolId).min(1, "give at least one file id").max(20, "at most 20 file_ids per call").describe("1-20 file ids (from search results)."),
  })
  .strict();

const document = z.object({
  file_id: z.string(),
  name: z.string(),
  file_type: z.string(),
  size: z.number().int(),
  status: z.string(),
  failure_reason: z.string().nullable(),
  page_count: z.number().int().nullable(),
  chunk_count: z.number().int(),
  knowledge_base_id: z.string(),
  knowledge_base_name: z.string(),
  uploaded_at: z.string(),
  embedding_status: z.string(),
});
const output = z.object({ documents: z.array(document), not_found: z.array(z.string()) });
export type GetDocumentInfoOutput = z.infer<typeof output>;

interface Row {
  id: string;
  name: string;
  file_type: string;
  size: bigint | number;
  status: string;
  error_code: string | null;
  error_message: string | null;
  page_count: number | null;
  chunk_count: number;
  knowledge_id: string;
  kb_name: string;
  created_at: Date | string;
  embedding_status: string;
}

export const getDocumentInfoTool: ToolDefinition<z.infer<typeof input>, GetDocumentInfoOutput> = {
  name: "get_document_info",
  description:
    "Facts about documents by file id: name, type, size, status (and why it failed), page and chunk " +
    "counts, knowledge base, upload time, embedding status. Use it to judge a source or to know how " +
    "many chunks list_knowledge_chunks can page through.",
  inputSchema: input,
  outputSchema: output,
  async run(args, ctx) {
    const ids = [...new Set(args.file_ids)];
    const db = await toolDb();
    // Only files in the caller's KBs: anything else is reported as not found.
    const rows = await db.$queryRawUnsafe<Row[]>(
      `SELECT f.id, f.name, f.file_type, f.size, f.status, f.error_code, f.error_message, f.page_count, f.chunk_count,
              f.knowledge_id, k.name AS kb_name, f.created_at, f.embedding_status
         FROM knowledge_files f JOIN knowledges k ON k.id = f.knowledge_id
        WHERE f.id = ANY($1::text[]) AND f.knowledge_id = ANY($2::text[])`,
      ids,
      [...ctx.readableKnowledgeIds],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const documents = ids.flatMap((id) => {
      const r = byId.get(id);
      if (!r) return [];
      return [
        {
          file_id: r.id,
          name: r.name,
          file_type: r.file_type,
          size: Number(r.size),
          status: r.status,
          failure_reason: r.status === "failed" ? (r.error_message ?? r.error_code ?? "unknown") : null,
          page_count: r.page_count == null ? null : Number(r.page_count),
          chunk_count: Number(r.chunk_count),
          knowledge_base_id: r.knowledge_id,
          knowledge_base_name: r.kb_name,
          uploaded_at: new Date(r.created_at).toISOString(),
          embedding_status: r.embedding_status,
        },
      ];
    });
    return { documents, not_found: ids.filter((id) => !byId.has(id)) };
  },
  summarize(out) {
    return { count: out.documents.length, summary: `${out.documents.length} documents${out.not_found.length ? `, ${out.not_found.length} not found` : ""}` };
  },
};
