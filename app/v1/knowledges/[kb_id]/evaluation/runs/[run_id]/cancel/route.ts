import { ok } from "@/lib/api/envelope";
import { evalRunParams, evaluationScope } from "@/lib/api/evaluation-scope";
import { apiRoute } from "@/lib/api/route";
import { cancelRun } from "@/lib/retrieval/evaluation/store";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// A queued run is cancelled at once, a running one after the question in flight (its results so far stay).
export const POST = apiRoute<{ kb_id: string; run_id: string }>(async (request, ctx) => {
  const { kb_id, run_id } = await evaluationScope(request, await ctx.params, evalRunParams);
  return ok(await cancelRun(kb_id, run_id));
});
