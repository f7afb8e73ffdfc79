import { ok } from "@/lib/api/envelope";
import { parseParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { fileParams, type FileParams } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { fileContent } from "@/lib/db/files";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// The indexed text of a file for the viewer; it is rendered as text, never as HTML.
export const GET = apiRoute<FileParams>(async (request, ctx) => {
  const { kb_id, file_id } = parseParams(await ctx.params, fileParams);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "read");
  return ok(await fileContent(await getDb(), kb_id, file_id));
});
