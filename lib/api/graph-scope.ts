import { z } from "zod";
import { requireKnowledgeAccess, type Need } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { parseParams } from "./request";
import { id } from "./schemas";

// The preamble of the knowledge-graph routes (app/v1/knowledges/[kb_id]/graph/**): path ids,
// the session's user, the KB access the handler needs.
const graphParams = z.object({ kb_id: id, entity_id: id.optional(), relation_id: id.optional() });
export type GraphParams = { kb_id: string; entity_id?: string; relation_id?: string };

export async function graphScope(request: Request, params: Promise<unknown>, need: Need) {
  const p = parseParams(await params, graphParams);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, p.kb_id, need);
  return { user, db: await getDb(), kbId: p.kb_id, entityId: p.entity_id ?? "", relationId: p.relation_id ?? "" };
}
