import { ok } from "@/lib/api/envelope";
import { parseParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { fileParams, type FileParams } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { fileView } from "@/lib/db/knowledges";
import { requireFile } from "@/lib/db/files";
import { deleteKnowledgeFile } from "@/lib/ingestion/runner";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute<FileParams>(async (request, ctx) => {
  const { kb_id, file_id } = parseParams(await ctx.params, fileParams);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "read");
  return ok(fileView(await requireFile(await getDb(), kb_id, file_id)));
});

// Removes the file, its chunks (past answers keep their reference snapshots) and the original.
export const DELETE = apiRoute<FileParams>(async (request, ctx) => {
  const { kb_id, file_id } = parseParams(await ctx.params, fileParams);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "write");
  const res = await deleteKnowledgeFile(await getDb(), { knowledgeId: kb_id, fileId: file_id });
  return ok({ id: res.fileId, deleted: true, chunk_count: res.chunkCount });
});
