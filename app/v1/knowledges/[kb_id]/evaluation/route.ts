import { ok } from "@/lib/api/envelope";
import { evaluationScope } from "@/lib/api/evaluation-scope";
import { apiRoute } from "@/lib/api/route";
import { kbParams } from "@/lib/api/schemas";
import { evaluationOverview } from "@/lib/retrieval/evaluation/store";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// The evaluation tab's summary: question sets, runs (newest first) and what the page may offer.
export const GET = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id } = await evaluationScope(request, await ctx.params, kbParams);
  return ok(await evaluationOverview(kb_id));
});
