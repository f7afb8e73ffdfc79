import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { graphScope, type GraphParams } from "@/lib/api/graph-scope";
import { parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { entityMentions, getEntity, type EntityDetail } from "@/lib/graph/query";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const query = z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }).strict();

// An entity with its mentions (file, page, quote): each opens in the document viewer.
export const GET = apiRoute<GraphParams>(async (request, ctx) => {
  const { limit } = parseQuery(request, query);
  const { db, kbId, entityId } = await graphScope(request, ctx.params, "read");
  const entity = await getEntity(db, [kbId], entityId);
  return ok({ entity, mentions: await entityMentions(db, { knowledgeId: kbId, entityId: entity.id, limit }) } satisfies EntityDetail);
});
