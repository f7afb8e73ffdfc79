import { Readable } from "node:stream";
import { parseParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { fileParams, type FileParams } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { requireFile } from "@/lib/db/files";
import { openStoredReadStream } from "@/lib/ingestion/storage";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// Originals are downloads, never active content on this origin (SPEC §12): a generic type,
// attachment disposition, nosniff, and a CSP sandbox in case a browser renders it anyway.
export const GET = apiRoute<FileParams>(async (request, ctx) => {
  const { kb_id, file_id } = parseParams(await ctx.params, fileParams);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "read");
  const file = await requireFile(await getDb(), kb_id, file_id);
  const stream = Readable.toWeb(openStoredReadStream(file.storageKey)) as ReadableStream<Uint8Array>;
  const ascii = file.name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return new Response(stream, {
    headers: {
      "Content-Type": "application/octet-stream",
      "Content-Disposition": `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      "Content-Length": String(file.size),
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "sandbox; default-src 'none'",
      "Cache-Control": "private, no-store",
    },
  });
});
