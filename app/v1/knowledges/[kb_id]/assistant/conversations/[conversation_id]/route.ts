import { z } from "zod";
import { deleteConversation, findConversation, MAX_TITLE_CHARS, renameConversation } from "@/lib/assistant/conversations";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody } from "@/lib/api/request";
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

// Rename: the title is trimmed; an empty one is refused (the list would show nothing to pick).
const renameBody = z
  .object({ title: z.string().trim().min(1, "title must not be empty").max(MAX_TITLE_CHARS, `title must be at most ${MAX_TITLE_CHARS} characters`) })
  .strict();

export const PATCH = apiRoute<ConversationParams>(async (request, ctx) => {
  const { db, user, kbId, conversationId } = await conversationScope(request, ctx.params);
  const { title } = await parseJsonBody(request, renameBody);
  await findConversation(db, user.id, kbId, conversationId);
  return ok(await renameConversation(db, conversationId, title));
});
