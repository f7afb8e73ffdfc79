import { SSE_HEADERS } from "@/lib/assistant/sse-writer";
import { apiRoute } from "@/lib/api/route";
import type { FileParams } from "@/lib/api/schemas";
import { fileScope } from "@/lib/api/scope";
import { requireFile } from "@/lib/db/files";
import { jobProgressStream } from "@/lib/ingestion/sse-progress";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// SSE progress of parsing and indexing; a client connecting after the end gets the final state.
export const GET = apiRoute<FileParams>(async (request, ctx) => {
  const { db, kbId, fileId } = await fileScope(request, ctx.params, "read");
  await requireFile(db, kbId, fileId);
  return new Response(jobProgressStream(db, fileId, { signal: request.signal }), { headers: SSE_HEADERS });
});
