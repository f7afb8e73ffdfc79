import { failWith, ok } from "@/lib/api/envelope";
import { parseParams, parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { kbParams, pagination } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { listFiles } from "@/lib/db/files";
import { fileView } from "@/lib/db/knowledges";
import { receiveUpload } from "@/lib/ingestion/upload";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const listQuery = pagination(1000, 100);

export const GET = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id } = parseParams(await ctx.params, kbParams);
  const { page, page_size } = parseQuery(request, listQuery);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "read");
  return ok(await listFiles(await getDb(), kb_id, page, page_size));
});

// Multipart upload of several files (field `files`). Each file gets its own result; when every
// file was refused for the same reason, that reason is also the envelope's code.
export const POST = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id } = parseParams(await ctx.params, kbParams);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "write");
  const result = await receiveUpload(request, { knowledgeId: kb_id, userId: user.id, db: await getDb() });
  const files = result.files.map((f) => (f.ok ? { ok: true as const, file: fileView(f.file) } : f));
  const failures = result.files.filter((f) => !f.ok);
  const first = failures[0];
  if (first && !first.ok && failures.length === result.files.length && failures.every((f) => !f.ok && f.code === first.code)) {
    return failWith(first.code, first.message, { files });
  }
  return ok({ files });
});
