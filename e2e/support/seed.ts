import { createHash, randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { replaceFileChunks } from "@/lib/retrieval/index-writer";
import type { ChunkInput } from "@/lib/retrieval/types";

/**
 * Puts an already indexed file into a KB through the real index writer, for tests of the
 * assistant that should not wait on parsing. Ingestion itself is tested end to end elsewhere.
 */
export async function seedIndexedFile(
  knowledgeId: string,
  name: string,
  chunks: Array<Partial<ChunkInput> & { content: string }>,
  status = "success",
): Promise<string> {
  const db = await getDb();
  const id = randomUUID();
  await db.knowledgeFile.create({
    data: {
      id,
      knowledgeId,
      name,
      fileType: name.split(".").pop() ?? "txt",
      mimeType: "text/plain",
      size: BigInt(chunks.reduce((n, c) => n + c.content.length, 0)),
      sha256: createHash("sha256").update(id).digest("hex"),
      storageKey: `test/${id}`,
      status,
      embeddingStatus: "skipped",
      chunkCount: chunks.length,
    },
  });
  if (status === "success") {
    await replaceFileChunks(db, {
      knowledgeId,
      fileId: id,
      chunks: chunks.map((c, i) => ({
        ordinal: i,
        content: c.content,
        pageStart: c.pageStart ?? null,
        pageEnd: c.pageEnd ?? c.pageStart ?? null,
        pageMarks: c.pageMarks ?? null,
        headingPath: c.headingPath ?? "",
      })),
    });
  }
  return id;
}

export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Reads a whole SSE response into events (comments are counted separately). */
export async function readSse(res: Response): Promise<{ events: SseEvent[]; comments: number }> {
  const text = await res.text();
  const events: SseEvent[] = [];
  let comments = 0;
  for (const block of text.split(/\n\n/)) {
    if (!block.trim()) continue;
    if (block.startsWith(":")) {
      comments++;
      continue;
    }
    const ev = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
    const data = /^data: (.*)$/m.exec(block)?.[1] ?? "null";
    events.push({ event: ev, data: JSON.parse(data) as Record<string, unknown> });
  }
  return { events, comments };
}

export const SAMPLE_CHUNKS = [
  {
    content: "智慧城市建设政策要求各地在2025年前完成城市数据平台建设，实施范围包括全部地级市。",
    pageStart: 3,
    headingPath: "第二章 / 政策要求",
  },
  {
    content: "市场规模方面，2023年智慧城市市场规模达到2.4万亿元，同比增长12%。",
    pageStart: 8,
    pageEnd: 9,
    headingPath: "第三章 / 市场规模",
  },
  {
    content: "The warranty covers manufacturing defects for 24 months from the date of purchase. Batteries are covered for 12 months.",
    pageStart: 1,
    headingPath: "Warranty",
  },
  {
    content: "To reset the device, hold the power button for ten seconds until the light blinks blue.",
    pageStart: 2,
    headingPath: "Troubleshooting / Reset",
  },
];
