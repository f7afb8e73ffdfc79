import { z } from "zod";
import { findConversation } from "@/lib/assistant/conversations";
import { externalRefKeySchema, removeExternalRef } from "@/lib/assistant/external-refs";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { conversationScope, type ConversationParams } from "@/lib/api/scope";

export const runtime = "nodejs";

// Seed 002: `{"ref": {...}}`, matched on the normalized target key (every locating field).
const body = z.object({ ref: externalRefKeySchema }).strict();

export const POST = apiRoute<ConversationParams>(async (request, ctx) => {
  const { db, user, kbId, conversationId } = await conversationScope(request, ctx.params);
  const { ref } = await parseJsonBody(request, body);
  await findConversation(db, user.id, kbId, conversationId);
  return ok({ removed: await removeExternalRef(db, conversationId, ref) });
});
