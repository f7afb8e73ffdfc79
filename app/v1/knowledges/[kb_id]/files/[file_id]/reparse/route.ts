import { ok } from "@/lib/api/envelope";
import { parseParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { fileParams, type FileParams } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { reparseKnowledgeFile } from "@/lib/ingestion/runner";

export const runtime = "nodejs";

export const POST = apiRoute<FileParams>(async (request, ctx) => {
  const { kb_id, file_id } = parseParams(await ctx.params, fileParams);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "write");
  const r = await reparseKnowledgeFile(await getDb(), { knowledgeId: kb_id, fileId: file_id });
  return ok({ file_id: r.fileId, job_id: r.jobId, status: r.status, already_queued: r.alreadyQueued });
});
