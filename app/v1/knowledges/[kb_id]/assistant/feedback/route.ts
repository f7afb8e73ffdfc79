import { z } from "zod";
import { FEEDBACK_RATINGS, listKnowledgeFeedback } from "@/lib/assistant/feedback";
import { ok } from "@/lib/api/envelope";
import { parseParams, parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { kbParams } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const query = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().min(1).max(512).optional(),
    rating: z.enum(FEEDBACK_RATINGS).optional(),
  })
  .strict();

// Rated answers of the KB, for the people who can change it (owners and editors): viewers
// answer FORBIDDEN, non-members KNOWLEDGE_NOT_FOUND.
export const GET = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id } = parseParams(await ctx.params, kbParams);
  const q = parseQuery(request, query);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "write");
  return ok(await listKnowledgeFeedback(await getDb(), kb_id, q));
});
