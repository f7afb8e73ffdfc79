import { findConversation } from "@/lib/assistant/conversations";
import { listExternalRefs } from "@/lib/assistant/external-refs";
import { ok } from "@/lib/api/envelope";
import { apiRoute } from "@/lib/api/route";
import { conversationScope, type ConversationParams } from "@/lib/api/scope";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute<ConversationParams>(async (request, ctx) => {
  const { db, user, kbId, conversationId } = await conversationScope(request, ctx.params);
  await findConversation(db, user.id, kbId, conversationId);
  return ok({ items: await listExternalRefs(db, conversationId) });
});
