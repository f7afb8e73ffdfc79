import "server-only";
import { randomUUID } from "node:crypto";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { ChatMessage } from "@/lib/models/chat";

// A turn holds the conversation for at most this long; a crashed turn cannot lock it forever.
const TURN_LEASE_MS = 5 * 60_000;

export async function findConversation(db: Db, userId: string, knowledgeId: string, conversationId: string) {
  const c = await db.conversation.findFirst({ where: { id: conversationId, userId, knowledgeId } });
  if (!c) throw new AppError("CONVERSATION_NOT_FOUND");
  return c;
}

export async function createConversation(db: Db, userId: string, knowledgeId: string, firstQuestion: string) {
  const title = [...firstQuestion.replace(/\s+/g, " ").trim()].slice(0, 40).join("");
  return db.conversation.create({ data: { id: randomUUID(), userId, knowledgeId, title } });
}

/** Takes the conversation for one turn; a second concurrent question is refused, never interleaved. */
export async function acquireTurn(db: Db, conversationId: string, turnId: string): Promise<void> {
  const now = new Date();
  const stale = new Date(now.getTime() - TURN_LEASE_MS);
  const { count } = await db.conversation.updateMany({
    where: { id: conversationId, OR: [{ activeTurnId: null }, { activeTurnAt: { lt: stale } }] },
    data: { activeTurnId: turnId, activeTurnAt: now },
  });
  if (count === 0) throw new AppError("CONVERSATION_BUSY");
}

export async function releaseTurn(db: Db, conversationId: string, turnId: string): Promise<void> {
  await db.conversation.updateMany({
    where: { id: conversationId, activeTurnId: turnId },
    data: { activeTurnId: null, activeTurnAt: null },
  });
}

/** The last `limit` question/answer turns, oldest first, as chat messages. */
export async function loadHistory(db: Db, conversationId: string, limit: number): Promise<ChatMessage[]> {
  if (limit <= 0) return [];
  const rows = await db.message.findMany({
    where: { conversationId, content: { not: "" } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit * 2,
    select: { role: true, content: true },
  });
  return rows
    .reverse()
    .map((r) => ({ role: r.role === "assistant" ? ("assistant" as const) : ("user" as const), content: r.content.slice(0, 2000) }));
}

export async function saveMessage(
  db: Db,
  data: {
    id?: string;
    conversationId: string;
    role: "user" | "assistant";
    content: string;
    referencesJson?: unknown;
    usageJson?: unknown;
    metadataJson?: unknown;
    finishReason?: string | null;
    engine?: string | null;
  },
) {
  const id = data.id ?? randomUUID();
  const now = new Date();
  await db.$transaction([
    db.message.create({
      data: {
        id,
        conversationId: data.conversationId,
        role: data.role,
        content: data.content,
        referencesJson: (data.referencesJson ?? undefined) as Prisma.InputJsonValue | undefined,
        usageJson: (data.usageJson ?? undefined) as Prisma.InputJsonValue | undefined,
        metadataJson: (data.metadataJson ?? undefined) as Prisma.InputJsonValue | undefined,
        finishReason: data.finishReason ?? null,
        engine: data.engine ?? null,
        createdAt: now,
      },
    }),
    db.conversation.update({
      where: { id: data.conversationId },
      data: { messageCount: { increment: 1 }, lastMessageAt: now },
    }),
  ]);
  return id;
}

export async function listConversations(db: Db, userId: string, knowledgeId: string, page: number, pageSize: number) {
  const where = { userId, knowledgeId };
  const [rows, total] = await Promise.all([
    db.conversation.findMany({
      where,
      orderBy: [{ lastMessageAt: { sort: "desc", nulls: "last" } }, { createdAt: "desc" }],
      skip: (page - 1) * pageSize,
      take: pageSize,
    }),
    db.conversation.count({ where }),
  ]);
  return {
    items: rows.map((c) => ({
      id: c.id,
      title: c.title,
      message_count: c.messageCount,
      last_message_at: c.lastMessageAt?.toISOString() ?? null,
      created_at: c.createdAt.toISOString(),
    })),
    total,
    page,
    page_size: pageSize,
  };
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
