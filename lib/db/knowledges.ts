import "server-only";
import { randomUUID } from "node:crypto";
import { AppError } from "@/lib/errors";
import type { Db, RawDb } from "./client";

export interface KnowledgeSummary {
  id: string;
  name: string;
  description: string;
  remark: string;
  role: string;
  /** Whether this member may use the assistant on the KB (bootstrap "disabled" otherwise). */
  assistant_enabled: boolean;
  file_count: number;
  ready_file_count: number;
  indexing_file_count: number;
  failed_file_count: number;
  total_file_size: number;
  created_at: string;
  updated_at: string;
}

const INDEXING = ["queued", "parsing", "chunking", "embedding", "indexing"];

interface Row {
  id: string;
  name: string;
  description: string;
  remark: string;
  role: string;
  assistant_enabled: boolean;
  created_at: Date;
  updated_at: Date;
  file_count: bigint | number;
  ready_file_count: bigint | number;
  indexing_file_count: bigint | number;
  failed_file_count: bigint | number;
  total_file_size: bigint | number | null;
}

function toSummary(r: Row): KnowledgeSummary {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    remark: r.remark,
    role: r.role,
    assistant_enabled: r.assistant_enabled,
    file_count: Number(r.file_count),
    ready_file_count: Number(r.ready_file_count),
    indexing_file_count: Number(r.indexing_file_count),
    failed_file_count: Number(r.failed_file_count),
    total_file_size: Number(r.total_file_size ?? 0),
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

// Aggregates in one query so a list of 1000 KBs is one round trip.
const SUMMARY_SELECT = `
  SELECT k.id, k.name, k.description, k.remark, m.role, m.assistant_enabled, k.created_at, k.updated_at,
         COUNT(f.id) AS file_count,
         COUNT(f.id) FILTER (WHERE f.status = 'success') AS ready_file_count,
         COUNT(f.id) FILTER (WHERE f.status = ANY($2::text[])) AS indexing_file_count,
         COUNT(f.id) FILTER (WHERE f.status = 'failed') AS failed_file_count,
         COALESCE(SUM(f.size), 0) AS total_file_size
    FROM knowledges k
    JOIN knowledge_members m ON m.knowledge_id = k.id AND m.user_id = $1
    LEFT JOIN knowledge_files f ON f.knowledge_id = k.id`;

export async function listKnowledges(db: Db, userId: string, page: number, pageSize: number) {
  const rows = await db.$queryRawUnsafe<Row[]>(
    `${SUMMARY_SELECT}
     GROUP BY k.id, m.role, m.assistant_enabled
     ORDER BY k.created_at ASC, k.id ASC
     LIMIT $3 OFFSET $4`,
    userId,
    INDEXING,
    pageSize,
    (page - 1) * pageSize,
  );
  const total = await db.knowledgeMember.count({ where: { userId } });
  return { items: rows.map(toSummary), total, page, page_size: pageSize };
}

export async function getKnowledgeSummary(db: Pick<RawDb, "$queryRawUnsafe">, userId: string, knowledgeId: string): Promise<KnowledgeSummary> {
  const rows = await db.$queryRawUnsafe<Row[]>(
    `${SUMMARY_SELECT} WHERE k.id = $3 GROUP BY k.id, m.role, m.assistant_enabled`,
    userId,
    INDEXING,
    knowledgeId,
  );
  const row = rows[0];
  if (!row) throw new AppError("KNOWLEDGE_NOT_FOUND");
  return toSummary(row);
}

export async function createKnowledge(
  db: Db,
  userId: string,
  input: { name: string; description?: string; remark?: string },
): Promise<KnowledgeSummary> {
  const id = randomUUID();
  await db.$transaction([
    db.knowledge.create({
      data: { id, name: input.name, description: input.description ?? "", remark: input.remark ?? "", ownerId: userId },
    }),
    db.knowledgeMember.create({ data: { knowledgeId: id, userId, role: "owner" } }),
  ]);
  return getKnowledgeSummary(db, userId, id);
}

export async function updateKnowledge(
  db: Db,
  userId: string,
  knowledgeId: string,
  input: { name?: string; description?: string; remark?: string },
): Promise<KnowledgeSummary> {
  await db.knowledge.update({ where: { id: knowledgeId }, data: input });
  return getKnowledgeSummary(db, userId, knowledgeId);
}

export async function deleteKnowledge(db: Db, knowledgeId: string): Promise<void> {
  // Rows cascade (files, chunks, jobs, conversations); originals are removed by the caller.
  await db.knowledge.delete({ where: { id: knowledgeId } });
}

export async function knowledgeTree(db: Db, userId: string) {
  const kbs = await db.knowledge.findMany({
    where: { members: { some: { userId } } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    include: {
      members: { where: { userId }, select: { role: true } },
      files: {
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: {
          id: true,
          name: true,
          fileType: true,
          size: true,
          status: true,
          embeddingStatus: true,
          pageCount: true,
          chunkCount: true,
          grepIndexed: true,
          errorCode: true,
          errorMessage: true,
          createdAt: true,
          updatedAt: true,
        },
      },
    },
  });
  return kbs.map((k) => ({
    id: k.id,
    name: k.name,
    role: k.members[0]?.role ?? "viewer",
    files: k.files.map(fileView),
  }));
}

export function fileView(f: {
  id: string;
  name: string;
  fileType: string;
  size: bigint;
  status: string;
  embeddingStatus: string;
  pageCount: number | null;
  chunkCount: number;
  grepIndexed: boolean;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: Date;
  updatedAt: Date;
}) {
  return {
    id: f.id,
    name: f.name,
    file_type: f.fileType,
    size: Number(f.size),
    status: f.status,
    embedding_status: f.embeddingStatus,
    page_count: f.pageCount,
    chunk_count: f.chunkCount,
    // Its text is in grep_chunks' trigram index (built after the file is ready; until then
    // grep_chunks scans the file's chunks: same matches, slower).
    grep_indexed: f.grepIndexed,
    error_code: f.errorCode,
    error_message: f.errorMessage,
    created_at: f.createdAt.toISOString(),
    updated_at: f.updatedAt.toISOString(),
  };
}
