import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { evaluationScope } from "@/lib/api/evaluation-scope";
import { parseJsonBody } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { id, kbParams } from "@/lib/api/schemas";
import { createRun, listRuns } from "@/lib/retrieval/evaluation/store";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// min_score null: the chat's default (RETRIEVAL_MIN_SCORE); the run keeps it with its settings.
const body = z.object({ set_id: id, min_score: z.number().min(0).max(1).nullable().default(null) }).strict();

export const GET = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id } = await evaluationScope(request, await ctx.params, kbParams);
  return ok(await listRuns(kb_id));
});

// Queues a background run; its progress is pushed by GET …/runs/{run_id}/events (SSE) and read by GET …/runs/{run_id}.
export const POST = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id, userId } = await evaluationScope(request, await ctx.params, kbParams);
  const input = await parseJsonBody(request, body);
  return ok(await createRun(kb_id, userId, input.set_id, input.min_score));
});
