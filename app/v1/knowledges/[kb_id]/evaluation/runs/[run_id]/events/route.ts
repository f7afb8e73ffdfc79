import { SSE_HEADERS } from "@/lib/assistant/sse-writer";
import { evalRunParams, evaluationScope } from "@/lib/api/evaluation-scope";
import { apiRoute } from "@/lib/api/route";
import { getRun, runEventStream } from "@/lib/retrieval/evaluation/store";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// SSE progress of an evaluation run (docs/evaluation.md): the same access as GET …/runs/{run_id}
// (owners and editors; viewers FORBIDDEN, others KNOWLEDGE_NOT_FOUND, another KB's run
// EVALUATION_RUN_NOT_FOUND), answered as a JSON envelope before any event is sent.
export const GET = apiRoute<{ kb_id: string; run_id: string }>(async (request, ctx) => {
  const { kb_id, run_id } = await evaluationScope(request, await ctx.params, evalRunParams);
  await getRun(kb_id, run_id);
  return new Response(runEventStream(kb_id, run_id, { signal: request.signal }), { headers: SSE_HEADERS });
});
