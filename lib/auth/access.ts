import "server-only";
import { getDb } from "@/lib/db/client";
import { acceptInvitations } from "./members";
import { AppError } from "@/lib/errors";
import type { Principal } from "./session";

export type Role = "owner" | "editor" | "viewer";
export type Need = "read" | "write" | "manage";

const RANK: Record<Role, number> = { viewer: 1, editor: 2, owner: 3 };
const NEED_RANK: Record<Need, number> = { read: 1, write: 2, manage: 3 };

export interface KnowledgeAccess {
  knowledgeId: string;
  role: Role;
  assistantEnabled: boolean;
}

/**
 * The caller's access to one KB. A KB the caller is not a member of answers exactly like a
 * missing one (KNOWLEDGE_NOT_FOUND), so ids of other users' KBs reveal nothing.
 */
export async function requireKnowledgeAccess(userId: string, knowledgeId: string, need: Need): Promise<KnowledgeAccess> {
  const db = await getDb();
  let m = await db.knowledgeMember.findUnique({
    where: { knowledgeId_userId: { knowledgeId, userId } },
  });
  if (!m) {
    // Invited by e-mail and signed in before the invitation was made: it is accepted as the
    // person reaches the KB (members.ts), not only at their next sign-in or listing.
    const user = await db.user.findUnique({ where: { id: userId }, select: { id: true, email: true } });
    const invited = user && (await db.knowledgeInvitation.count({ where: { knowledgeId, email: user.email, expiresAt: { gt: new Date() } } }));
    if (user && invited && (await acceptInvitations(user)) > 0) {
      m = await db.knowledgeMember.findUnique({ where: { knowledgeId_userId: { knowledgeId, userId } } });
    }
  }
  if (!m) throw new AppError("KNOWLEDGE_NOT_FOUND");
  const role = m.role as Role;
  if (RANK[role] < NEED_RANK[need]) {
    throw new AppError("FORBIDDEN", need === "manage" ? "Only the owner can do this." : "Viewers can read but not change this knowledge base.");
  }
  return { knowledgeId, role, assistantEnabled: m.assistantEnabled };
}

/** Precomputed access targets (seed 003): every KB id the user may read. */
export async function readableKnowledgeIds(userId: string): Promise<Set<string>> {
  const db = await getDb();
  const rows = await db.knowledgeMember.findMany({ where: { userId }, select: { knowledgeId: true } });
  return new Set(rows.map((r) => r.knowledgeId));
}

/**
 * The access targets of a principal: the user's readable KBs, narrowed to a token's chosen KBs
 * when the token has a restriction (a KB the user has since left stays out).
 */
export async function accessTargets(principal: Principal): Promise<Set<string>> {
  const all = await readableKnowledgeIds(principal.user.id);
  const only = principal.token?.knowledgeIds;
  if (!only?.length) return all;
  return new Set(only.filter((id) => all.has(id)));
}
