import { ok } from "@/lib/api/envelope";
import { evalRunParams, evaluationScope } from "@/lib/api/evaluation-scope";
import { apiRoute } from "@/lib/api/route";
import { deleteRun, getRun } from "@/lib/retrieval/evaluation/store";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type P = { kb_id: string; run_id: string };

export const GET = apiRoute<P>(async (request, ctx) => {
  const { kb_id, run_id } = await evaluationScope(request, await ctx.params, evalRunParams);
  return ok(await getRun(kb_id, run_id));
});

export const DELETE = apiRoute<P>(async (request, ctx) => {
  const { kb_id, run_id } = await evaluationScope(request, await ctx.params, evalRunParams);
  await deleteRun(kb_id, run_id);
  return ok({ id: run_id, deleted: true });
});
