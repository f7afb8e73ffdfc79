import { findConversation, listMessages } from "@/lib/assistant/conversations";
import { ok } from "@/lib/api/envelope";
import { parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { pagination } from "@/lib/api/schemas";
import { conversationScope, type ConversationParams } from "@/lib/api/scope";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const query = pagination(200, 50);

export const GET = apiRoute<ConversationParams>(async (request, ctx) => {
  const { page, page_size } = parseQuery(request, query);
  const { db, user, kbId, conversationId } = await conversationScope(request, ctx.params);
  await findConversation(db, user.id, kbId, conversationId);
  return ok(await listMessages(db, conversationId, page, page_size));
});
