import "server-only";
import { AppError } from "@/lib/errors";
import type { Db } from "./client";
import { fileView } from "./knowledges";

/** A file of a KB; a file of another KB (or none) answers FILE_NOT_FOUND either way. */
export async function requireFile(db: Db, knowledgeId: string, fileId: string) {
  const f = await db.knowledgeFile.findFirst({ where: { id: fileId, knowledgeId } });
  if (!f) throw new AppError("FILE_NOT_FOUND");
  return f;
}

export async function listFiles(db: Db, knowledgeId: string, page: number, pageSize: number) {
  const [rows, total] = await Promise.all([
    db.knowledgeFile.findMany({
      where: { knowledgeId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      skip: (page - 1) * pageSize,
      take: pageSize,
    }),
    db.knowledgeFile.count({ where: { knowledgeId } }),
  ]);
  return { items: rows.map(fileView), total, page, page_size: pageSize };
}

/** The indexed text of a file, chunk by chunk, for the document viewer. */
export async function fileContent(db: Db, knowledgeId: string, fileId: string) {
  const file = await requireFile(db, knowledgeId, fileId);
  const chunks = await db.chunk.findMany({
    where: { fileId },
    orderBy: { ordinal: "asc" },
    select: { id: true, ordinal: true, pageStart: true, pageEnd: true, headingPath: true, content: true },
  });
  return {
    file: fileView(file),
    chunks: chunks.map((c) => ({
      id: c.id,
      ordinal: c.ordinal,
      page_start: c.pageStart,
      page_end: c.pageEnd,
      heading_path: c.headingPath,
      content: c.content,
    })),
  };
}
