import "server-only";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

// Members are added by e-mail. So that adding does not tell a manager which e-mails have
// accounts (issue 16), anyone not yet a member of the KB is *invited*, whether or not an
// account exists: the answer and the listing are the same in both cases. The invitation becomes
// a membership when a person holding that e-mail signs in (a sign-up is followed by one) or
// lists their KBs (acceptInvitations). Invitations lapse after INVITATION_TTL_MS.
const INVITATION_TTL_MS = 14 * 24 * 3600 * 1000;

export async function listMembers(knowledgeId: string) {
  const db = await getDb();
  const [rows, invitations] = await Promise.all([
    db.knowledgeMember.findMany({
      where: { knowledgeId },
      include: { user: { select: { id: true, email: true, name: true } } },
      orderBy: { createdAt: "asc" },
    }),
    db.knowledgeInvitation.findMany({ where: { knowledgeId, expiresAt: { gt: new Date() } }, orderBy: { createdAt: "asc" } }),
  ]);
  return {
    items: rows.map((m) => ({ user_id: m.userId, email: m.user.email, name: m.user.name, role: m.role, assistant_enabled: m.assistantEnabled })),
    invitations: invitations.map(invitationView),
  };
}

function invitationView(i: { id: string; email: string; role: string; assistantEnabled: boolean; createdAt: Date; expiresAt: Date }) {
  return { id: i.id, email: i.email, role: i.role, assistant_enabled: i.assistantEnabled, created_at: i.createdAt.toISOString(), expires_at: i.expiresAt.toISOString() };
}

/**
 * Adds a person by e-mail. A current member's role changes at once (the manager already sees
 * the members); anyone else gets an invitation (created or renewed), so the answer does not
 * depend on whether the e-mail has an account. The owner's own role cannot be changed here.
 */
export async function upsertMember(
  knowledgeId: string,
  input: { email: string; role: "editor" | "viewer"; assistant_enabled: boolean },
  invitedById: string,
) {
  const db = await getDb();
  const email = input.email.trim().toLowerCase();
  const member = await db.knowledgeMember.findFirst({ where: { knowledgeId, user: { email } } });
  if (member) {
    if (member.role === "owner") throw new AppError("INVALID_PARAMS", "The owner's role cannot be changed.");
    await db.knowledgeMember.update({
      where: { knowledgeId_userId: { knowledgeId, userId: member.userId } },
      data: { role: input.role, assistantEnabled: input.assistant_enabled },
    });
    return { status: "member" as const, email, role: input.role, assistant_enabled: input.assistant_enabled };
  }
  const expiresAt = new Date(Date.now() + INVITATION_TTL_MS);
  const data = { role: input.role, assistantEnabled: input.assistant_enabled, invitedById, expiresAt };
  await db.knowledgeInvitation.upsert({
    where: { knowledgeId_email: { knowledgeId, email } },
    update: data,
    create: { id: randomUUID(), knowledgeId, email, ...data },
  });
  return { status: "invited" as const, email, role: input.role, assistant_enabled: input.assistant_enabled };
}

export async function removeMember(knowledgeId: string, userId: string) {
  const db = await getDb();
  const m = await db.knowledgeMember.findUnique({ where: { knowledgeId_userId: { knowledgeId, userId } } });
  if (!m) throw new AppError("USER_NOT_FOUND", "That user is not a member.");
  if (m.role === "owner") throw new AppError("INVALID_PARAMS", "The owner cannot be removed.");
  await db.knowledgeMember.delete({ where: { knowledgeId_userId: { knowledgeId, userId } } });
}

export async function revokeInvitation(knowledgeId: string, invitationId: string) {
  const db = await getDb();
  const { count } = await db.knowledgeInvitation.deleteMany({ where: { id: invitationId, knowledgeId } });
  if (count === 0) throw new AppError("INVITATION_NOT_FOUND");
}

/**
 * Turns the live invitations of this user's e-mail into memberships (an existing membership
 * keeps its role) and deletes them. Cheap when there are none: one indexed read.
 */
export async function acceptInvitations(user: { id: string; email: string }): Promise<number> {
  const db = await getDb();
  const pending = await db.knowledgeInvitation.findMany({ where: { email: user.email.toLowerCase() } });
  if (pending.length === 0) return 0;
  const now = Date.now();
  const live = pending.filter((i) => i.expiresAt.getTime() > now);
  await db.$transaction([
    ...live.map((i) =>
      db.knowledgeMember.upsert({
        where: { knowledgeId_userId: { knowledgeId: i.knowledgeId, userId: user.id } },
        update: {},
        create: { knowledgeId: i.knowledgeId, userId: user.id, role: i.role, assistantEnabled: i.assistantEnabled },
      }),
    ),
    db.knowledgeInvitation.deleteMany({ where: { id: { in: pending.map((i) => i.id) } } }),
  ]);
  return live.length;
}
