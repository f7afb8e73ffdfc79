import { z } from "zod";
import { findConversation } from "@/lib/assistant/conversations";
import { removeExternalRef } from "@/lib/assistant/external-refs";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody, parseParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { id } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";

export const runtime = "nodejs";

const params = z.object({ kb_id: id, conversation_id: id });
const body = z
  .object({
    ref: z
      .object({ provider: z.string().max(64), target_type: z.enum(["knowledge_base", "folder", "document"]), id: z.string().min(1).max(200) })
      .passthrough(),
  })
  .strict();

export const POST = apiRoute<z.infer<typeof params>>(async (request, ctx) => {
  const { kb_id, conversation_id } = parseParams(await ctx.params, params);
  const { user } = await requirePrincipal(request);
  const { ref } = await parseJsonBody(request, body);
  await requireKnowledgeAccess(user.id, kb_id, "read");
  const db = await getDb();
  await findConversation(db, user.id, kb_id, conversation_id);
  return ok({ removed: await removeExternalRef(db, conversation_id, ref) });
});
