import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody, parseParams } from "@/lib/api/request";
import { apiRoute, type RouteContext } from "@/lib/api/route";
import { kbParams } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { deleteKnowledge, getKnowledgeSummary, updateKnowledge } from "@/lib/db/knowledges";
import { removeKnowledgeOriginals } from "@/lib/ingestion/kb-originals";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const updateBody = z
  .object({
    name: z.string().trim().min(1, "name is required").max(100, "name is at most 100 characters").optional(),
    description: z.string().trim().max(2000).optional(),
    remark: z.string().trim().max(2000).optional(),
  })
  .strict();

type Params = { kb_id: string };

export const GET = apiRoute<Params>(async (request, ctx: RouteContext<Params>) => {
  const { kb_id } = parseParams(await ctx.params, kbParams);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "read");
  return ok(await getKnowledgeSummary(await getDb(), user.id, kb_id));
});

export const PATCH = apiRoute<Params>(async (request, ctx) => {
  const { kb_id } = parseParams(await ctx.params, kbParams);
  const { user } = await requirePrincipal(request);
  const body = await parseJsonBody(request, updateBody);
  await requireKnowledgeAccess(user.id, kb_id, "write");
  return ok(await updateKnowledge(await getDb(), user.id, kb_id, body));
});

export const DELETE = apiRoute<Params>(async (request, ctx) => {
  const { kb_id } = parseParams(await ctx.params, kbParams);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "manage");
  await deleteKnowledge(await getDb(), kb_id);
  await removeKnowledgeOriginals(kb_id);
  return ok({ id: kb_id, deleted: true });
});
