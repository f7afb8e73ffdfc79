import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { graphScope, type GraphParams } from "@/lib/api/graph-scope";
import { parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { neighbourhood } from "@/lib/graph/query";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const query = z
  .object({
    depth: z.enum(["1", "2"]).default("1").transform((d) => (d === "2" ? 2 : 1) as 1 | 2),
    limit: z.coerce.number().int().min(1).max(50).default(20),
  })
  .strict();

// An entity's strongest relations (and at depth 2 its neighbours'), ordered by weight.
export const GET = apiRoute<GraphParams>(async (request, ctx) => {
  const { depth, limit } = parseQuery(request, query);
  const { db, kbId, entityId } = await graphScope(request, ctx.params, "read");
  return ok(await neighbourhood(db, { knowledgeId: kbId, entityId, depth, limit }));
});
