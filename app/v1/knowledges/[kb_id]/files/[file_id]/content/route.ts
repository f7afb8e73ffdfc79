import { ok } from "@/lib/api/envelope";
import { apiRoute } from "@/lib/api/route";
import type { FileParams } from "@/lib/api/schemas";
import { fileScope } from "@/lib/api/scope";
import { fileContent } from "@/lib/db/files";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// The indexed text of a file for the viewer; it is rendered as text, never as HTML.
export const GET = apiRoute<FileParams>(async (request, ctx) => {
  const { db, kbId, fileId } = await fileScope(request, ctx.params, "read");
  return ok(await fileContent(db, kbId, fileId));
});
