import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Db, RawDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { ChatMessage } from "@/lib/models/chat";
import { turnOwner } from "./turn-owner";

// A turn holds the conversation for at most this long; a crashed turn cannot lock it forever.
// (A turn of a process that died on this host is released at the next start, turn-recovery.ts.)
const TURN_LEASE_MS = 5 * 60_000;

/** finish_reason of an answer still being written, and of one whose process died meanwhile. */
export const STREAMING = "streaming";
export const INTERRUPTED = "interrupted";

export async function findConversation(db: Db, userId: string, knowledgeId: string, conversationId: string) {
  const c = await db.conversation.findFirst({ where: { id: conversationId, userId, knowledgeId } });
  if (!c) throw new AppError("CONVERSATION_NOT_FOUND");
  return c;
}

/**
 * Takes the conversation for one turn. A question that arrives while another turn still holds
 * it waits up to `waitMs` (the usual case is "stop, then ask again", where the stopped turn is
 * still saving its partial answer); after that it is refused, never interleaved.
 */
export async function acquireTurn(db: Db, conversationId: string, turnId: string, waitMs = 3_000): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const now = new Date();
    const stale = new Date(now.getTime() - TURN_LEASE_MS);
    const data = { activeTurnId: turnId, activeTurnAt: now, activeTurnOwner: turnOwner() };
    const { count } = await db.conversation.updateMany({ where: { id: conversationId, activeTurnId: null }, data });
    if (count > 0) return;
    // An expired lease belongs to a turn that died without ending: its partial answer, if any,
    // is marked interrupted as the conversation is taken over.
    const takeover = await db.conversation.updateMany({ where: { id: conversationId, activeTurnAt: { lt: stale } }, data });
    if (takeover.count > 0) {
      await db.message.updateMany({ where: { conversationId, finishReason: STREAMING }, data: { finishReason: INTERRUPTED } });
      return;
    }
    if (Date.now() >= deadline) throw new AppError("CONVERSATION_BUSY");
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function releaseTurn(db: Db, conversationId: string, turnId: string): Promise<void> {
  await db.conversation.updateMany({
    where: { id: conversationId, activeTurnId: turnId },
    data: { activeTurnId: null, activeTurnAt: null, activeTurnOwner: null },
  });
}

/** The last `limit` question/answer turns, oldest first, as chat messages. */
/**
 * The last `limit` turns (a question and its answer each) before the current question, oldest
 * first. The current question is already saved, so it is excluded by id: counting it in would
 * cut the oldest turn's question off.
 */
export async function loadHistory(db: Db, conversationId: string, limit: number, currentMessageId: string): Promise<ChatMessage[]> {
  if (limit <= 0) return [];
  const rows = await db.message.findMany({
    where: { conversationId, content: { not: "" }, id: { not: currentMessageId } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit * 2,
    select: { role: true, content: true },
  });
  return rows
    .reverse()
    .map((r) => ({ role: r.role === "assistant" ? ("assistant" as const) : ("user" as const), content: r.content.slice(0, 2000) }));
}

export interface NewMessage {
  id?: string;
  conversationId: string;
  role: "user" | "assistant";
  content: string;
  referencesJson?: unknown;
  usageJson?: unknown;
  metadataJson?: unknown;
  finishReason?: string | null;
  engine?: string | null;
}

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/**
 * Inserts a message and bumps the conversation's count and time in ONE statement (a CTE), so
 * the two can never disagree and a turn costs one round trip per save.
 */
export async function saveMessage(db: Pick<RawDb, "$executeRawUnsafe">, m: NewMessage, releaseTurnId?: string): Promise<string> {
  const id = m.id ?? randomUUID();
  // With releaseTurnId the same statement also ends the turn's lease (one commit per answer).
  await db.$executeRawUnsafe(
    `WITH ins AS (
       INSERT INTO knowledge_assistant_messages
         (id, conversation_id, role, content, references_json, usage_json, metadata_json, finish_reason, engine, created_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8, $9, clock_timestamp())
       RETURNING created_at
     )
     UPDATE knowledge_assistant_conversations
        SET message_count = message_count + 1, last_message_at = (SELECT created_at FROM ins), updated_at = now(),
            active_turn_id = CASE WHEN $10::text IS NOT NULL AND active_turn_id = $10::text THEN NULL ELSE active_turn_id END,
            active_turn_at = CASE WHEN $10::text IS NOT NULL AND active_turn_id = $10::text THEN NULL ELSE active_turn_at END,
            active_turn_owner = CASE WHEN $10::text IS NOT NULL AND active_turn_id = $10::text THEN NULL ELSE active_turn_owner END
      WHERE id = $2`,
    id,
    m.conversationId,
    m.role,
    m.content,
    json(m.referencesJson),
    json(m.usageJson),
    json(m.metadataJson),
    m.finishReason ?? null,
    m.engine ?? null,
    releaseTurnId ?? null,
  );
  return id;
}

/**
 * Starts a conversation that is already held by its first turn and already holds the first
 * question: one statement instead of create + lease + save.
 */
export async function startConversationWithQuestion(
  db: Pick<RawDb, "$executeRawUnsafe">,
  a: { userId: string; knowledgeId: string; question: string; turnId: string },
): Promise<{ conversationId: string; userMessageId: string }> {
  const conversationId = randomUUID();
  const userMessageId = randomUUID();
  const title = [...a.question.replace(/\s+/g, " ").trim()].slice(0, 40).join("");
  await db.$executeRawUnsafe(
    `WITH conv AS (
       INSERT INTO knowledge_assistant_conversations
         (id, knowledge_id, user_id, title, message_count, last_message_at, active_turn_id, active_turn_at, active_turn_owner, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 1, clock_timestamp(), $5, now(), $8, now(), now())
       RETURNING id, last_message_at
     )
     INSERT INTO knowledge_assistant_messages (id, conversation_id, role, content, created_at)
     SELECT $6, conv.id, 'user', $7, conv.last_message_at FROM conv`,
    conversationId,
    a.knowledgeId,
    a.userId,
    title,
    a.turnId,
    userMessageId,
    a.question,
    turnOwner(),
  );
  return { conversationId, userMessageId };
}

/**
 * The streamed answer's row, written once the answer has gone on for a while (partial-saver.ts):
 * finish_reason "streaming" until the turn ends. Counts in the conversation like any message.
 */
export async function insertStreamingMessage(
  db: Pick<RawDb, "$executeRawUnsafe">,
  m: { id: string; conversationId: string; content: string; referencesJson: unknown; engine: string },
): Promise<void> {
  await saveMessage(db, { ...m, role: "assistant", finishReason: STREAMING, metadataJson: { partial: true } });
}

export async function updateStreamingContent(db: Pick<RawDb, "$executeRawUnsafe">, id: string, content: string): Promise<void> {
  // Also renews the lease: a turn still writing is alive.
  await db.$executeRawUnsafe(
    `WITH upd AS (
       UPDATE knowledge_assistant_messages SET content = $2 WHERE id = $1 AND finish_reason = '${STREAMING}' RETURNING conversation_id
     )
     UPDATE knowledge_assistant_conversations SET active_turn_at = now() WHERE id = (SELECT conversation_id FROM upd) AND active_turn_id IS NOT NULL`,
    id,
    content,
  );
}

/** The final save of a turn whose row was already inserted: the full answer, and the lease ends. */
export async function finishStreamingMessage(db: Pick<RawDb, "$executeRawUnsafe">, m: NewMessage & { id: string }, releaseTurnId: string): Promise<void> {
  await db.$executeRawUnsafe(
    `WITH upd AS (
       UPDATE knowledge_assistant_messages
          SET content = $3, references_json = $4::jsonb, usage_json = $5::jsonb, metadata_json = $6::jsonb, finish_reason = $7, engine = $8
        WHERE id = $1 AND conversation_id = $2
        RETURNING id
     )
     UPDATE knowledge_assistant_conversations
        SET updated_at = now(),
            active_turn_id = CASE WHEN active_turn_id = $9::text THEN NULL ELSE active_turn_id END,
            active_turn_at = CASE WHEN active_turn_id = $9::text THEN NULL ELSE active_turn_at END,
            active_turn_owner = CASE WHEN active_turn_id = $9::text THEN NULL ELSE active_turn_owner END
      WHERE id = $2`,
    m.id,
    m.conversationId,
    m.content,
    json(m.referencesJson),
    json(m.usageJson),
    json(m.metadataJson),
    m.finishReason ?? null,
    m.engine ?? null,
    releaseTurnId,
  );
}

/** A conversation list position: the last shown row's time and id (keyset paging, stable under inserts). */
interface ConversationCursor {
  t: string | null;
  id: string;
}

export function encodeConversationCursor(c: ConversationCursor): string {
  return Buffer.from(JSON.stringify(c)).toString("base64url");
}

const cursorShape = z.object({ t: z.iso.datetime().nullable(), id: z.string().min(1).max(64) }).strict();

export function decodeConversationCursor(raw: string): ConversationCursor {
  try {
    return cursorShape.parse(JSON.parse(Buffer.from(raw, "base64url").toString("utf8")));
  } catch {
    throw new AppError("INVALID_PARAMS", 'Invalid field "cursor": not a cursor this list returned.', { field: "cursor" });
  }
}

/** Prisma's contains/ILIKE does not escape LIKE wildcards: "%" or "_" typed by a user are literal. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export interface ConversationListQuery {
  page: number;
  pageSize: number;
  /** Keyset position after which to continue (ignores `page`). */
  cursor?: string;
  /** Case-insensitive search in the title and in every message's text. */
  q?: string;
}

export async function listConversations(db: Db, userId: string, knowledgeId: string, query: ConversationListQuery) {
  const { page, pageSize } = query;
  const q = query.q?.trim();
  const where: Prisma.ConversationWhereInput = { userId, knowledgeId };
  if (q) {
    const pattern = { contains: likeLiteral(q), mode: "insensitive" as const };
    where.OR = [{ title: pattern }, { messages: { some: { content: pattern } } }];
  }
  // Newest activity first; a conversation without messages (none are created so today) last.
  let after: Prisma.ConversationWhereInput | undefined;
  if (query.cursor) {
    const c = decodeConversationCursor(query.cursor);
    after = c.t
      ? { OR: [{ lastMessageAt: { lt: new Date(c.t) } }, { lastMessageAt: new Date(c.t), id: { lt: c.id } }, { lastMessageAt: null }] }
      : { lastMessageAt: null, id: { lt: c.id } };
  }
  const [rows, total] = await Promise.all([
    db.conversation.findMany({
      where: after ? { AND: [where, after] } : where,
      orderBy: [{ lastMessageAt: { sort: "desc", nulls: "last" } }, { id: "desc" }],
      skip: query.cursor ? 0 : (page - 1) * pageSize,
      take: pageSize + 1,
    }),
    db.conversation.count({ where }),
  ]);
  const more = rows.length > pageSize;
  const shown = rows.slice(0, pageSize);
  const last = shown.at(-1);
  return {
    items: shown.map(conversationSummary),
    total,
    page,
    page_size: pageSize,
    next_cursor: more && last ? encodeConversationCursor({ t: last.lastMessageAt?.toISOString() ?? null, id: last.id }) : null,
  };
}

function conversationSummary(c: { id: string; title: string; messageCount: number; lastMessageAt: Date | null; createdAt: Date }) {
  return {
    id: c.id,
    title: c.title,
    message_count: c.messageCount,
    last_message_at: c.lastMessageAt?.toISOString() ?? null,
    created_at: c.createdAt.toISOString(),
  };
}

export const MAX_TITLE_CHARS = 100;

/** Renames one of the caller's conversations (the caller's ownership is checked by the route). */
export async function renameConversation(db: Db, conversationId: string, title: string) {
  const c = await db.conversation.update({ where: { id: conversationId }, data: { title } });
  return conversationSummary(c);
}

/**
 * Edit-and-resend and regenerate (ChatGPT's truncated branch): the question `fromMessageId` and
 * every later message of the conversation are deleted, with their feedback, in one statement
 * that also corrects the conversation's count and time. Runs inside the turn's lease, before the
 * new question is saved. The earlier answer is replaced, not kept as a version.
 */
export async function truncateFromQuestion(db: Pick<RawDb, "$executeRawUnsafe">, conversationId: string, fromMessageId: string): Promise<void> {
  const deleted = await db.$executeRawUnsafe(
    `WITH cut AS (
       SELECT created_at, id FROM knowledge_assistant_messages WHERE id = $2 AND conversation_id = $1 AND role = 'user'
     ), del AS (
       DELETE FROM knowledge_assistant_messages m USING cut
        WHERE m.conversation_id = $1 AND (m.created_at, m.id) >= (cut.created_at, cut.id)
       RETURNING m.id
     )
     UPDATE knowledge_assistant_conversations
        SET message_count = GREATEST(0, message_count - (SELECT count(*) FROM del)), updated_at = now()
      WHERE id = $1 AND EXISTS (SELECT 1 FROM cut)`,
    conversationId,
    fromMessageId,
  );
  if (deleted === 0) throw new AppError("MESSAGE_NOT_FOUND", "The question to edit is not in this conversation.");
}

export async function listMessages(db: Db, conversationId: string, page: number, pageSize: number) {
  const [rows, total] = await Promise.all([
    db.message.findMany({
      where: { conversationId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      skip: (page - 1) * pageSize,
      take: pageSize,
    }),
    db.message.count({ where: { conversationId } }),
  ]);
  return {
    items: rows.map((m) => ({
      id: m.id,
      role: m.role,
      content: m.content,
      references: (m.referencesJson as unknown[] | null) ?? [],
      usage: m.usageJson ?? null,
      finish_reason: m.finishReason,
      engine: m.engine,
      metadata: m.metadataJson ?? null,
      feedback: m.feedbackRating ? { rating: m.feedbackRating, comment: m.feedbackComment } : null,
      created_at: m.createdAt.toISOString(),
    })),
    total,
    page,
    page_size: pageSize,
  };
}

export async function deleteConversation(db: Db, conversationId: string) {
  await db.conversation.delete({ where: { id: conversationId } });
}
