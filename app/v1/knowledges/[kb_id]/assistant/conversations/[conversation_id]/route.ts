import { z } from "zod";
import { deleteConversation, findConversation } from "@/lib/assistant/conversations";
import { ok } from "@/lib/api/envelope";
import { parseParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { id } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const params = z.object({ kb_id: id, conversation_id: id });
type Params = z.infer<typeof params>;

export const DELETE = apiRoute<Params>(async (request, ctx) => {
  const { kb_id, conversation_id } = parseParams(await ctx.params, params);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "read");
  const db = await getDb();
  await findConversation(db, user.id, kb_id, conversation_id);
  await deleteConversation(db, conversation_id);
  return ok({ id: conversation_id, deleted: true });
});
