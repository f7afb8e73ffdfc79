import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { getRetrievalRuntime } from "@/lib/retrieval/runtime";

// A binding of an external source to a conversation (SPEC §8, seed 002 field table). It names
// the provider and the target only: no secrets and no raw external URLs are accepted or stored.
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;
const CONTROL = /[\u0000-\u001f\u007f]/;
const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((v) => !CONTROL.test(v), "control characters are not allowed")
    .transform((v) => v.trim());
const locator = text(200).nullable().optional();

const refFields = {
  provider: z.string().regex(/^[a-z0-9-]+$/, "provider must be a provider key").max(64),
  mode: z.enum(["explicit", "all_accessible"]).default("explicit"),
  id: text(200).nullable().optional(),
  target_type: z.enum(["knowledge_base", "folder", "document"]).default("knowledge_base"),
  node_id: locator,
  document_id: locator,
  parent_id: locator,
};

type RefLike = {
  provider: string;
  mode: "explicit" | "all_accessible";
  id?: string | null;
  target_type: "knowledge_base" | "folder" | "document";
  node_id?: string | null;
  document_id?: string | null;
};

function checkTarget(r: RefLike, ctx: z.RefinementCtx) {
  if (r.mode === "explicit" && !r.id) ctx.addIssue({ code: "custom", path: ["id"], message: "id is required in explicit mode" });
  if (r.target_type === "document" && !r.document_id) ctx.addIssue({ code: "custom", path: ["document_id"], message: "a document binding needs document_id" });
  if (r.target_type === "folder" && !r.node_id) ctx.addIssue({ code: "custom", path: ["node_id"], message: "a folder binding needs node_id" });
  if (r.mode === "all_accessible" && r.target_type !== "knowledge_base") {
    ctx.addIssue({ code: "custom", path: ["target_type"], message: "all_accessible binds the whole provider" });
  }
}

export const externalRefSchema = z
  .object({ ...refFields, name: text(200).default(""), scope: text(200).default(""), target_name: text(200).default("") })
  .strict()
  .superRefine((r, ctx) => {
    checkTarget(r, ctx);
    for (const v of [r.id, r.name, r.scope, r.target_name, r.node_id, r.document_id, r.parent_id]) {
      if (v && URL_LIKE.test(v)) ctx.addIssue({ code: "custom", message: "external refs name targets by id; URLs are not accepted" });
    }
  });

/** The remove body (seed 002): the locating fields; display fields may be sent and are ignored. */
export const externalRefKeySchema = z
  .object({ ...refFields, name: z.unknown().optional(), scope: z.unknown().optional(), target_name: z.unknown().optional() })
  .strict()
  .superRefine(checkTarget);

export type ExternalRef = z.infer<typeof externalRefSchema>;
export type ExternalRefKey = z.infer<typeof externalRefKeySchema>;

/**
 * The normalized target key: every locating field, so two documents (or folders) of one source
 * are two bindings and remove takes away exactly the one named. parent_id only places a target
 * in a tree; it does not identify it.
 */
export function targetKey(r: RefLike): string {
  const id = r.mode === "all_accessible" ? "" : (r.id ?? "");
  const node = r.target_type === "knowledge_base" ? "" : (r.node_id ?? "");
  const doc = r.target_type === "document" ? (r.document_id ?? "") : "";
  return [r.provider, r.mode, id, r.target_type, node, doc].join("\u001f");
}

/**
 * Seed 002: the provider validates and resolves the refs bound to a conversation. Refused with
 * PROVIDER_NOT_FOUND / EXTERNAL_SOURCE_NOT_FOUND / PROVIDER_UNAVAILABLE before anything is stored;
 * names come back from the provider's listing when it has one.
 */
export async function resolveExternalRefs(ownerId: string, refs: ExternalRef[], signal?: AbortSignal): Promise<ExternalRef[]> {
  const runtime = getRetrievalRuntime();
  return Promise.all(refs.map((r) => runtime.validateBinding(r, { ownerId, signal })));
}

export async function bindExternalRefs(db: Db, conversationId: string, refs: ExternalRef[]) {
  for (const r of refs) {
    const key = targetKey(r);
    const fields = {
      mode: r.mode,
      refId: r.mode === "all_accessible" ? null : (r.id ?? null),
      name: r.name,
      scope: r.scope,
      targetType: r.target_type,
      nodeId: r.target_type === "knowledge_base" ? null : (r.node_id ?? null),
      documentId: r.target_type === "document" ? (r.document_id ?? null) : null,
      parentId: r.parent_id ?? null,
      targetName: r.target_name,
    };
    await db.externalKnowledgeRef.upsert({
      where: { conversationId_targetKey: { conversationId, targetKey: key } },
      update: fields,
      create: { id: randomUUID(), conversationId, provider: r.provider, targetKey: key, ...fields },
    });
  }
}

export async function listExternalRefs(db: Db, conversationId: string) {
  const rows = await db.externalKnowledgeRef.findMany({ where: { conversationId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return rows.map((r) => ({
    provider: r.provider,
    mode: r.mode as "explicit" | "all_accessible",
    id: r.refId,
    name: r.name,
    scope: r.scope,
    target_type: r.targetType as "knowledge_base" | "folder" | "document",
    node_id: r.nodeId,
    document_id: r.documentId,
    parent_id: r.parentId,
    target_name: r.targetName,
  }));
}

export async function removeExternalRef(db: Db, conversationId: string, ref: ExternalRefKey) {
  const { count } = await db.externalKnowledgeRef.deleteMany({ where: { conversationId, targetKey: targetKey(ref) } });
  return count;
}

/** Validates every ref with its provider, then binds them; returns the conversation's bindings. */
export async function bindValidatedRefs(db: Db, ownerId: string, conversationId: string, refs: ExternalRef[], signal?: AbortSignal) {
  const resolved = await resolveExternalRefs(ownerId, refs, signal);
  await bindExternalRefs(db, conversationId, resolved);
  return listExternalRefs(db, conversationId);
}
