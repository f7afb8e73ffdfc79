import { z } from "zod";
import { findConversation } from "@/lib/assistant/conversations";
import { bindValidatedRefs, externalRefSchema, listExternalRefs } from "@/lib/assistant/external-refs";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { conversationScope, type ConversationParams } from "@/lib/api/scope";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute<ConversationParams>(async (request, ctx) => {
  const { db, user, kbId, conversationId } = await conversationScope(request, ctx.params);
  await findConversation(db, user.id, kbId, conversationId);
  return ok({ items: await listExternalRefs(db, conversationId) });
});

// Binds sources to the conversation (later turns search them); each is validated by its provider.
const body = z.object({ refs: z.array(externalRefSchema).min(1).max(20) }).strict();

export const POST = apiRoute<ConversationParams>(async (request, ctx) => {
  const { db, user, kbId, conversationId } = await conversationScope(request, ctx.params);
  const { refs } = await parseJsonBody(request, body);
  await findConversation(db, user.id, kbId, conversationId);
  return ok({ items: await bindValidatedRefs(db, user.id, conversationId, refs, request.signal) });
});
