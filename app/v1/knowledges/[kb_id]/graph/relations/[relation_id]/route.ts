import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { graphScope, type GraphParams } from "@/lib/api/graph-scope";
import { parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { relationDetail } from "@/lib/graph/query";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const query = z.object({ limit: z.coerce.number().int().min(1).max(50).default(10) }).strict();

// A relation with its two entities and the passages that support it.
export const GET = apiRoute<GraphParams>(async (request, ctx) => {
  const { limit } = parseQuery(request, query);
  const { db, kbId, relationId } = await graphScope(request, ctx.params, "read");
  return ok(await relationDetail(db, { knowledgeId: kbId, relationId, limit }));
});
