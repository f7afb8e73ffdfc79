import { z } from "zod";
import { findConversation } from "@/lib/assistant/conversations";
import { FEEDBACK_RATINGS, MAX_FEEDBACK_COMMENT_CHARS, setMessageFeedback } from "@/lib/assistant/feedback";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody, parseParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { id } from "@/lib/api/schemas";
import { conversationScope, type ConversationParams } from "@/lib/api/scope";

export const runtime = "nodejs";

// `rating: null` withdraws the rating. The comment is optional and only kept with a rating.
const body = z
  .object({
    rating: z.enum(FEEDBACK_RATINGS).nullable(),
    comment: z.string().max(MAX_FEEDBACK_COMMENT_CHARS, `comment must be at most ${MAX_FEEDBACK_COMMENT_CHARS} characters`).nullable().default(null),
  })
  .strict();

const messageParams = z.object({ message_id: id });

export const PUT = apiRoute<ConversationParams & { message_id: string }>(async (request, ctx) => {
  const params = await ctx.params;
  const { message_id } = parseParams({ message_id: params.message_id }, messageParams);
  const { db, user, kbId, conversationId } = await conversationScope(request, Promise.resolve(params));
  const { rating, comment } = await parseJsonBody(request, body);
  await findConversation(db, user.id, kbId, conversationId);
  return ok(await setMessageFeedback(db, conversationId, message_id, rating, comment));
});
