import { z } from "zod";
import { findConversation } from "@/lib/assistant/conversations";
import { listConversationSources } from "@/lib/assistant/knowledge-sources";
import { ok } from "@/lib/api/envelope";
import { parseParams, parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { id, kbParams } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// The aggregated listing of the assistant's knowledge entry: pagination_scope per_source.
const query = z.object({ conversation_id: id.optional(), limit: z.coerce.number().int().min(1).max(100).default(50) }).strict();

export const GET = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id } = parseParams(await ctx.params, kbParams);
  const q = parseQuery(request, query);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "read");
  const db = await getDb();
  if (q.conversation_id) await findConversation(db, user.id, kb_id, q.conversation_id);
  return ok(await listConversationSources(db, user.id, kb_id, q.conversation_id ?? null, q.limit, request.signal));
});
