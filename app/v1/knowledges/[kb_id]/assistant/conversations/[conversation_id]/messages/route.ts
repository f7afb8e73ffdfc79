import { z } from "zod";
import { findConversation, listMessages } from "@/lib/assistant/conversations";
import { ok } from "@/lib/api/envelope";
import { parseParams, parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { id, pagination } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const params = z.object({ kb_id: id, conversation_id: id });
const query = pagination(200, 50);

export const GET = apiRoute<z.infer<typeof params>>(async (request, ctx) => {
  const { kb_id, conversation_id } = parseParams(await ctx.params, params);
  const { page, page_size } = parseQuery(request, query);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "read");
  const db = await getDb();
  await findConversation(db, user.id, kb_id, conversation_id);
  return ok(await listMessages(db, conversation_id, page, page_size));
});
