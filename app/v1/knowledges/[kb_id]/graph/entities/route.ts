import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { graphScope, type GraphParams } from "@/lib/api/graph-scope";
import { parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { searchEntities } from "@/lib/graph/query";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const query = z
  .object({
    q: z.string().trim().min(1, "q is required").max(100, "q is at most 100 characters").refine((s) => !s.includes("\u0000"), "q contains a NUL character"),
    limit: z.coerce.number().int().min(1).max(50).default(20),
  })
  .strict();

// Entity search (fuzzy, pg_trgm) in one KB's graph.
export const GET = apiRoute<GraphParams>(async (request, ctx) => {
  const { q, limit } = parseQuery(request, query);
  const { db, kbId } = await graphScope(request, ctx.params, "read");
  const items = await searchEntities(db, { knowledgeIds: [kbId], query: q, limit });
  return ok({ items, total: items.length });
});
