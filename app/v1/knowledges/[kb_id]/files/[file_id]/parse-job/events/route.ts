import { SSE_HEADERS } from "@/lib/assistant/sse-writer";
import { parseParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { fileParams, type FileParams } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { requireFile } from "@/lib/db/files";
import { jobProgressStream } from "@/lib/ingestion/sse-progress";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// SSE progress of parsing and indexing; a client connecting after the end gets the final state.
export const GET = apiRoute<FileParams>(async (request, ctx) => {
  const { kb_id, file_id } = parseParams(await ctx.params, fileParams);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "read");
  const db = await getDb();
  await requireFile(db, kb_id, file_id);
  return new Response(jobProgressStream(db, file_id, { signal: request.signal }), { headers: SSE_HEADERS });
});
