import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody, parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { pagination } from "@/lib/api/schemas";
import { acceptInvitations } from "@/lib/auth/members";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { createKnowledge, listKnowledges } from "@/lib/db/knowledges";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const listQuery = pagination(1000);

export const createBody = z
  .object({
    name: z.string().trim().min(1, "name is required").max(100, "name is at most 100 characters"),
    description: z.string().trim().max(2000).optional(),
    remark: z.string().trim().max(2000).optional(),
  })
  .strict();

export const GET = apiRoute(async (request) => {
  const { page, page_size } = parseQuery(request, listQuery);
  const { user } = await requirePrincipal(request);
  // A signed-in person invited meanwhile sees the KB at their next listing.
  await acceptInvitations(user);
  return ok(await listKnowledges(await getDb(), user.id, page, page_size));
});

export const POST = apiRoute(async (request) => {
  const { user } = await requirePrincipal(request);
  const body = await parseJsonBody(request, createBody);
  return ok(await createKnowledge(await getDb(), user.id, body));
});
