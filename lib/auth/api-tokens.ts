import "server-only";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

export async function listApiTokens(userId: string) {
  const db = await getDb();
  const rows = await db.apiToken.findMany({ where: { userId, revokedAt: null }, orderBy: { createdAt: "desc" } });
  return rows.map((t) => ({
    id: t.id,
    name: t.name,
    scope: t.scope,
    knowledge_ids: t.knowledgeIds,
    created_at: t.createdAt.toISOString(),
    last_used_at: t.lastUsedAt?.toISOString() ?? null,
  }));
}

export async function revokeApiToken(userId: string, tokenId: string) {
  const db = await getDb();
  const { count } = await db.apiToken.updateMany({ where: { id: tokenId, userId, revokedAt: null }, data: { revokedAt: new Date() } });
  if (count === 0) throw new AppError("INVALID_PARAMS", "No such token.");
}
