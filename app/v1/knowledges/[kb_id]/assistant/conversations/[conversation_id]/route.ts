import { deleteConversation, findConversation } from "@/lib/assistant/conversations";
import { ok } from "@/lib/api/envelope";
import { apiRoute } from "@/lib/api/route";
import { conversationScope, type ConversationParams } from "@/lib/api/scope";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const DELETE = apiRoute<ConversationParams>(async (request, ctx) => {
  const { db, user, kbId, conversationId } = await conversationScope(request, ctx.params);
  await findConversation(db, user.id, kbId, conversationId);
  await deleteConversation(db, conversationId);
  return ok({ id: conversationId, deleted: true });
});
