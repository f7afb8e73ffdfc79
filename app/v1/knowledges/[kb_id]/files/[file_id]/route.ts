import { ok } from "@/lib/api/envelope";
import { apiRoute } from "@/lib/api/route";
import type { FileParams } from "@/lib/api/schemas";
import { fileScope } from "@/lib/api/scope";
import { requireFile } from "@/lib/db/files";
import { fileView } from "@/lib/db/knowledges";
import { deleteKnowledgeFile } from "@/lib/ingestion/runner";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute<FileParams>(async (request, ctx) => {
  const { db, kbId, fileId } = await fileScope(request, ctx.params, "read");
  return ok(fileView(await requireFile(db, kbId, fileId)));
});

// Removes the file, its chunks (past answers keep their reference snapshots) and the original.
export const DELETE = apiRoute<FileParams>(async (request, ctx) => {
  const { db, kbId, fileId } = await fileScope(request, ctx.params, "write");
  const res = await deleteKnowledgeFile(db, { knowledgeId: kbId, fileId });
  return ok({ id: res.fileId, deleted: true, chunk_count: res.chunkCount });
});
