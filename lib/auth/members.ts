import "server-only";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

export async function listMembers(knowledgeId: string) {
  const db = await getDb();
  const rows = await db.knowledgeMember.findMany({
    where: { knowledgeId },
    include: { user: { select: { id: true, email: true, name: true } } },
    orderBy: { createdAt: "asc" },
  });
  return rows.map((m) => ({ user_id: m.userId, email: m.user.email, name: m.user.name, role: m.role, assistant_enabled: m.assistantEnabled }));
}

/** Adds (or changes) a member by e-mail. The owner's own role cannot be changed here. */
export async function upsertMember(knowledgeId: string, input: { email: string; role: "editor" | "viewer"; assistant_enabled: boolean }) {
  const db = await getDb();
  const user = await db.user.findUnique({ where: { email: input.email.trim().toLowerCase() } });
  if (!user) throw new AppError("USER_NOT_FOUND");
  const existing = await db.knowledgeMember.findUnique({ where: { knowledgeId_userId: { knowledgeId, userId: user.id } } });
  if (existing?.role === "owner") throw new AppError("INVALID_PARAMS", "The owner's role cannot be changed.");
  await db.knowledgeMember.upsert({
    where: { knowledgeId_userId: { knowledgeId, userId: user.id } },
    update: { role: input.role, assistantEnabled: input.assistant_enabled },
    create: { knowledgeId, userId: user.id, role: input.role, assistantEnabled: input.assistant_enabled },
  });
  return { user_id: user.id, email: user.email, name: user.name, role: input.role, assistant_enabled: input.assistant_enabled };
}

export async function removeMember(knowledgeId: string, userId: string) {
  const db = await getDb();
  const m = await db.knowledgeMember.findUnique({ where: { knowledgeId_userId: { knowledgeId, userId } } });
  if (!m) throw new AppError("USER_NOT_FOUND", "That user is not a member.");
  if (m.role === "owner") throw new AppError("INVALID_PARAMS", "The owner cannot be removed.");
  await db.knowledgeMember.delete({ where: { knowledgeId_userId: { knowledgeId, userId } } });
}
