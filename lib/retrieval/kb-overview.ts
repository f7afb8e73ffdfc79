import "server-only";
import type { Db } from "@/lib/db/client";
import { BUILTIN_SOURCE_TYPE } from "./kb-search";
import type { RetrievalHit } from "./types";

// What a knowledge base holds, for an "overview" question ("这个知识库主要包含哪些内容？"):
// its searchable files in upload order, each with its top-level headings in reading order and
// its first passage (the reference a reader opens). Search cannot answer such a question — no
// passage says "this KB contains…" — so the outline is read from the index itself.

export interface FileOutline {
  hit: RetrievalHit;
  /** The file's top-level headings (first heading-path segment), in order, at most 6. */
  headings: string[];
}

const MAX_FILES = 8;
const MAX_HEADINGS = 6;

export async function kbOverview(db: Db, knowledgeId: string, fileIds: string[] | null): Promise<FileOutline[]> {
  const rows = await db.$queryRawUnsafe<
    { id: string; file_id: string; file_name: string; ordinal: number; page_start: number | null; page_end: number | null; heading_path: string; content: string }[]
  >(
    `SELECT c.id, c.file_id, f.name AS file_name, c.ordinal, c.page_start, c.page_end, c.heading_path,
            CASE WHEN c.ordinal = 0 THEN c.content ELSE '' END AS content
     FROM knowledge_files f JOIN chunks c ON c.file_id = f.id
     WHERE f.id IN (SELECT id FROM knowledge_files
                    WHERE knowledge_id = $1 AND status = 'success' AND ($2::text[] IS NULL OR id = ANY($2::text[]))
                    ORDER BY created_at, id LIMIT ${MAX_FILES})
     ORDER BY f.created_at, f.id, c.ordinal`,
    knowledgeId,
    fileIds,
  );
  const byFile = new Map<string, FileOutline>();
  for (const r of rows) {
    let o = byFile.get(r.file_id);
    if (!o) {
      o = {
        hit: {
          id: r.id,
          chunkId: r.id,
          fileId: r.file_id,
          fileName: r.file_name,
          knowledgeId,
          pageStart: r.page_start,
          pageEnd: r.page_end,
          headingPath: r.heading_path,
          content: r.content,
          // Not a search result: the file's own first passage, shown because the question asks
          // what the KB holds.
          score: 1,
          sourceType: BUILTIN_SOURCE_TYPE,
          sourceId: r.file_id,
          sourceUri: null,
          sourceName: r.file_name,
          untrusted: true,
        },
        headings: [],
      };
      byFile.set(r.file_id, o);
    }
    const top = r.heading_path.split(" / ")[0]?.trim();
    if (top && !o.headings.includes(top) && o.headings.length < MAX_HEADINGS) o.headings.push(top);
  }
  return [...byFile.values()];
}
