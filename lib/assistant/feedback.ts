import "server-only";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

export const FEEDBACK_RATINGS = ["up", "down"] as const;
export type FeedbackRating = (typeof FEEDBACK_RATINGS)[number];
export const MAX_FEEDBACK_COMMENT_CHARS = 1000;

/**
 * Stores (or, with `rating: null`, withdraws) the reader's rating of one answer of their own
 * conversation. Only finished assistant answers can be rated; a question, or a message of
 * another conversation, answers MESSAGE_NOT_FOUND.
 */
export async function setMessageFeedback(db: Db, conversationId: string, messageId: string, rating: FeedbackRating | null, comment: string | null) {
  const text = comment?.trim() || null;
  const { count } = await db.message.updateMany({
    where: { id: messageId, conversationId, role: "assistant" },
    data: rating ? { feedbackRating: rating, feedbackComment: text, feedbackAt: new Date() } : { feedbackRating: null, feedbackComment: null, feedbackAt: null },
  });
  if (count === 0) throw new AppError("MESSAGE_NOT_FOUND");
  return { message_id: messageId, rating, comment: rating ? text : null };
}

interface FeedbackCursor {
  t: string;
  id: string;
}

const cursorShape = z.object({ t: z.iso.datetime(), id: z.string().min(1).max(64) }).strict();

function decodeCursor(raw: string): FeedbackCursor {
  try {
    return cursorShape.parse(JSON.parse(Buffer.from(raw, "base64url").toString("utf8")));
  } catch {
    throw new AppError("INVALID_PARAMS", 'Invalid field "cursor": not a cursor this list returned.', { field: "cursor" });
  }
}

const EXCERPT_CHARS = 300;

/**
 * The rated answers of one KB, newest first, for its owners and editors (the route checks the
 * role): every member's conversations count, since the owner improves the KB for all of them.
 * Each item carries the question it answered and who rated it.
 */
export async function listKnowledgeFeedback(db: Db, knowledgeId: string, opts: { limit: number; cursor?: string; rating?: FeedbackRating }) {
  const c = opts.cursor ? decodeCursor(opts.cursor) : null;
  const rows = await db.message.findMany({
    where: {
      feedbackAt: c ? undefined : { not: null },
      feedbackRating: opts.rating ?? { not: null },
      conversation: { knowledgeId },
      ...(c ? { OR: [{ feedbackAt: { lt: new Date(c.t) } }, { feedbackAt: new Date(c.t), id: { lt: c.id } }] } : {}),
    },
    orderBy: [{ feedbackAt: "desc" }, { id: "desc" }],
    take: opts.limit + 1,
    select: {
      id: true,
      conversationId: true,
      content: true,
      feedbackRating: true,
      feedbackComment: true,
      feedbackAt: true,
      createdAt: true,
      conversation: { select: { title: true, user: { select: { name: true, email: true } } } },
    },
  });
  const shown = rows.slice(0, opts.limit);
  // The question each answer replied to: the conversation's last user message before it.
  const questions = await Promise.all(
    shown.map((m) =>
      db.message.findFirst({
        where: { conversationId: m.conversationId, role: "user", createdAt: { lte: m.createdAt } },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        select: { content: true },
      }),
    ),
  );
  const last = shown.at(-1);
  return {
    items: shown.map((m, i) => ({
      message_id: m.id,
      conversation_id: m.conversationId,
      rating: m.feedbackRating as FeedbackRating,
      comment: m.feedbackComment,
      question: questions[i]?.content ?? "",
      answer_excerpt: [...m.content].slice(0, EXCERPT_CHARS).join(""),
      user_name: m.conversation.user.name || m.conversation.user.email,
      rated_at: m.feedbackAt!.toISOString(),
    })),
    next_cursor:
      rows.length > opts.limit && last?.feedbackAt ? Buffer.from(JSON.stringify({ t: last.feedbackAt.toISOString(), id: last.id })).toString("base64url") : null,
  };
}
