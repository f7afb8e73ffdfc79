import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { evalSetParams, evaluationScope } from "@/lib/api/evaluation-scope";
import { parseJsonBody } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { MAX_SET_BYTES, MAX_SET_QUESTIONS, questionSchema } from "@/lib/retrieval/evaluation/question-set";
import { deleteSet, getSet, updateSet } from "@/lib/retrieval/evaluation/store";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type P = { kb_id: string; set_id: string };
const body = z.object({ name: z.string().trim().min(1, "name is empty").max(120), questions: z.array(questionSchema).max(MAX_SET_QUESTIONS) }).strict();

export const GET = apiRoute<P>(async (request, ctx) => {
  const { kb_id, set_id } = await evaluationScope(request, await ctx.params, evalSetParams);
  return ok(await getSet(kb_id, set_id));
});

// The page's editor saves the whole set.
export const PATCH = apiRoute<P>(async (request, ctx) => {
  const { kb_id, set_id } = await evaluationScope(request, await ctx.params, evalSetParams);
  const input = await parseJsonBody(request, body, 2 * MAX_SET_BYTES);
  return ok(await updateSet(kb_id, set_id, input.name, input.questions));
});

export const DELETE = apiRoute<P>(async (request, ctx) => {
  const { kb_id, set_id } = await evaluationScope(request, await ctx.params, evalSetParams);
  await deleteSet(kb_id, set_id);
  return ok({ id: set_id, deleted: true });
});
