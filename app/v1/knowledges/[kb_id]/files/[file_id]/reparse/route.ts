import { ok } from "@/lib/api/envelope";
import { apiRoute } from "@/lib/api/route";
import type { FileParams } from "@/lib/api/schemas";
import { fileScope } from "@/lib/api/scope";
import { reparseKnowledgeFile } from "@/lib/ingestion/runner";

export const runtime = "nodejs";

export const POST = apiRoute<FileParams>(async (request, ctx) => {
  const { db, kbId, fileId } = await fileScope(request, ctx.params, "write");
  const r = await reparseKnowledgeFile(db, { knowledgeId: kbId, fileId });
  return ok({ file_id: r.fileId, job_id: r.jobId, status: r.status, already_queued: r.alreadyQueued });
});
