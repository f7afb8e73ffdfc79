import "server-only";
import type { Readable } from "node:stream";
import { requireFile } from "@/lib/db/files";
import { defaultMessage, isAppError } from "@/lib/errors";
import type { KnowledgeFile, PrismaClient } from "@/lib/generated/prisma/client";
import { emitJobEvent } from "./progress";
import { getStorage } from "./storage";

/**
 * A file's original for download. The stream is opened before the response starts, so an
 * original that vanished from storage (an object deleted behind the app's back) answers
 * ORIGINAL_NOT_FOUND as an envelope instead of a cut body, and the file is marked failed with
 * that reason: its passages are no longer served as references to a document nobody can open.
 */
export async function openOriginal(db: PrismaClient, knowledgeId: string, fileId: string): Promise<{ file: KnowledgeFile; stream: Readable }> {
  const file = await requireFile(db, knowledgeId, fileId);
  try {
    return { file, stream: await (await getStorage()).openRead(file.storageKey) };
  } catch (e) {
    if (isAppError(e) && e.code === "ORIGINAL_NOT_FOUND") await markOriginalMissing(db, file.id);
    throw e;
  }
}

export async function markOriginalMissing(db: PrismaClient, fileId: string): Promise<void> {
  const message = defaultMessage("ORIGINAL_NOT_FOUND");
  console.error(`[storage] the original of file ${fileId} is missing: marked failed`);
  await db.knowledgeFile.updateMany({ where: { id: fileId }, data: { status: "failed", errorCode: "ORIGINAL_NOT_FOUND", errorMessage: message } });
  emitJobEvent(fileId, { type: "error", code: "ORIGINAL_NOT_FOUND", message });
}
