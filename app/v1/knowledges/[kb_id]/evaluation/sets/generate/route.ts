import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { evaluationScope } from "@/lib/api/evaluation-scope";
import { parseJsonBody } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { kbParams } from "@/lib/api/schemas";
import { draftQuestions, MAX_GENERATED } from "@/lib/retrieval/evaluation/generate";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const body = z.object({ count: z.number().int().min(1).max(MAX_GENERATED).default(10) }).strict();

// A draft for the owner to edit (nothing is saved); needs a chat model (MODEL_UNAVAILABLE).
export const POST = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id } = await evaluationScope(request, await ctx.params, kbParams);
  const input = await parseJsonBody(request, body);
  return ok({ questions: await draftQuestions(kb_id, input.count, request.signal) });
});
