import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/lib/db/client";

// A binding of an external source to a conversation (SPEC §8). It names the provider and the
// target only: no secrets and no raw external URLs are accepted or stored.
const text = (max: number) => z.string().trim().max(max);
export const externalRefSchema = z
  .object({
    provider: z.string().regex(/^[a-z0-9-]+$/, "provider must be a provider key").max(64),
    mode: z.enum(["explicit", "all_accessible"]),
    id: text(200).min(1),
    name: text(200).default(""),
    scope: text(200).default(""),
    target_type: z.enum(["knowledge_base", "folder", "document"]),
    node_id: text(200).nullable().optional(),
    document_id: text(200).nullable().optional(),
    parent_id: text(200).nullable().optional(),
    target_name: text(200).default(""),
  })
  .strict()
  .refine((r) => ![r.id, r.name, r.scope, r.target_name].some((v) => /^[a-z][a-z0-9+.-]*:\/\//i.test(v)), {
    message: "external refs name targets by id; URLs are not accepted",
  });

export type ExternalRef = z.infer<typeof externalRefSchema>;

export async function bindExternalRefs(db: Db, conversationId: string, refs: ExternalRef[]) {
  for (const r of refs) {
    await db.externalKnowledgeRef.upsert({
      where: {
        conversationId_provider_targetType_refId: { conversationId, provider: r.provider, targetType: r.target_type, refId: r.id },
      },
      update: { mode: r.mode, name: r.name, scope: r.scope, targetName: r.target_name },
      create: {
        id: randomUUID(),
        conversationId,
        provider: r.provider,
        mode: r.mode,
        refId: r.id,
        name: r.name,
        scope: r.scope,
        targetType: r.target_type,
        nodeId: r.node_id ?? null,
        documentId: r.document_id ?? null,
        parentId: r.parent_id ?? null,
        targetName: r.target_name,
      },
    });
  }
}

export async function listExternalRefs(db: Db, conversationId: string) {
  const rows = await db.externalKnowledgeRef.findMany({ where: { conversationId }, orderBy: { createdAt: "asc" } });
  return rows.map((r) => ({
    provider: r.provider,
    mode: r.mode,
    id: r.refId,
    name: r.name,
    scope: r.scope,
    target_type: r.targetType,
    node_id: r.nodeId,
    document_id: r.documentId,
    parent_id: r.parentId,
    target_name: r.targetName,
  }));
}

export async function removeExternalRef(db: Db, conversationId: string, ref: Pick<ExternalRef, "provider" | "target_type" | "id">) {
  const { count } = await db.externalKnowledgeRef.deleteMany({
    where: { conversationId, provider: ref.provider, targetType: ref.target_type, refId: ref.id },
  });
  return count;
}
