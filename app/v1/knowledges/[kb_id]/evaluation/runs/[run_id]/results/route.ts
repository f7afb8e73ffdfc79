import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { evalRunParams, evaluationScope } from "@/lib/api/evaluation-scope";
import { parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { listResults } from "@/lib/retrieval/evaluation/store";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const query = z
  .object({
    page: z.coerce.number().int().min(1).max(1_000_000).default(1),
    page_size: z.coerce.number().int().min(1).max(200).default(50),
    filter: z.enum(["all", "missed", "refused", "unanswerable"]).default("all"),
  })
  .strict();

// The per-question table: expected vs. top results, rank of the first correct hit, score.
export const GET = apiRoute<{ kb_id: string; run_id: string }>(async (request, ctx) => {
  const { kb_id, run_id } = await evaluationScope(request, await ctx.params, evalRunParams);
  return ok(await listResults(kb_id, run_id, parseQuery(request, query)));
});
