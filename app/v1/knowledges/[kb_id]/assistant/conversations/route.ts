import { listConversations } from "@/lib/assistant/conversations";
import { ok } from "@/lib/api/envelope";
import { parseParams, parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { kbParams, pagination } from "@/lib/api/schemas";
import { z } from "zod";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// `cursor` (the previous page's next_cursor) pages by keyset; `q` searches titles and message text.
const query = pagination(100).extend({
  cursor: z.string().min(1).max(512).optional(),
  q: z.string().max(200).optional(),
});

export const GET = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id } = parseParams(await ctx.params, kbParams);
  const { page, page_size, cursor, q } = parseQuery(request, query);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "read");
  return ok(await listConversations(await getDb(), user.id, kb_id, { page, pageSize: page_size, cursor, q }));
});
