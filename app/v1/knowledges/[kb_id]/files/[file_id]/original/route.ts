import { Readable } from "node:stream";
import { apiRoute } from "@/lib/api/route";
import type { FileParams } from "@/lib/api/schemas";
import { fileScope } from "@/lib/api/scope";
import { openOriginal } from "@/lib/ingestion/original-download";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// Originals are downloads, never active content on this origin (SPEC §12): a generic type,
// attachment disposition, nosniff, and a CSP sandbox in case a browser renders it anyway.
export const GET = apiRoute<FileParams>(async (request, ctx) => {
  const { db, kbId, fileId } = await fileScope(request, ctx.params, "read");
  const { file, stream: original } = await openOriginal(db, kbId, fileId);
  const stream = Readable.toWeb(original) as ReadableStream<Uint8Array>;
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
