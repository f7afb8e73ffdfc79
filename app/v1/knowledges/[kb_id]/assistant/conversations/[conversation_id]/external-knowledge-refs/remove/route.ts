import { z } from "zod";
import { findConversation } from "@/lib/assistant/conversations";
import { removeExternalRef } from "@/lib/assistant/external-refs";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { conversationScope, type ConversationParams } from "@/lib/api/scope";

export const runtime = "nodejs";

const body = z
  .object({
    ref: z
      .object({ provider: z.string().max(64), target_type: z.enum(["knowledge_base", "folder", "document"]), id: z.string().min(1).max(200) })
      .passthrough(),
  })
  .strict();

export const POST = apiRoute<ConversationParams>(async (request, ctx) => {
  const { db, user, kbId, conversationId } = await conversationScope(request, ctx.params);
  const { ref } = await parseJsonBody(request, body);
  await findConversation(db, user.id, kbId, conversationId);
  return ok({ removed: await removeExternalRef(db, conversationId, ref) });
});
