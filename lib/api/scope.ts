import { z } from "zod";
import { requireKnowledgeAccess, type Need } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { parseParams } from "./request";
import { fileParams, id } from "./schemas";

// The common preamble of routes under a KB: parse the path ids, authenticate from the session,
// check the caller's access to the KB. Each handler still states the access it needs.
export async function fileScope(request: Request, params: Promise<unknown>, need: Need) {
  const { kb_id, file_id } = parseParams(await params, fileParams);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, need);
  return { user, db: await getDb(), kbId: kb_id, fileId: file_id };
}

const conversationParams = z.object({ kb_id: id, conversation_id: id });
export type ConversationParams = z.infer<typeof conversationParams>;

export async function conversationScope(request: Request, params: Promise<unknown>) {
  const { kb_id, conversation_id } = parseParams(await params, conversationParams);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "read");
  return { user, db: await getDb(), kbId: kb_id, conversationId: conversation_id };
}
