import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { evaluationScope } from "@/lib/api/evaluation-scope";
import { parseJsonBody } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { kbParams } from "@/lib/api/schemas";
import { MAX_SET_BYTES, MAX_SET_QUESTIONS, parseQuestionSet, questionSchema } from "@/lib/retrieval/evaluation/question-set";
import { createSet, listSets } from "@/lib/retrieval/evaluation/store";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const name = z.string().trim().min(1, "name is empty").max(120);
// Either an uploaded file's text (CSV or JSONL, parsed row by row: malformed rows come back
// with their line numbers and are left out) or questions built in the page's editor.
const body = z.union([
  z.object({ name, format: z.enum(["csv", "jsonl"]), content: z.string() }).strict(),
  z.object({ name, questions: z.array(questionSchema).max(MAX_SET_QUESTIONS) }).strict(),
]);
/** JSON escaping of an 8 MB file can grow it; the parser checks the text's own size (QUESTION_SET_TOO_LARGE). */
const BODY_LIMIT = 2 * MAX_SET_BYTES;

export const GET = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id } = await evaluationScope(request, await ctx.params, kbParams);
  return ok(await listSets(kb_id));
});

export const POST = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id, userId } = await evaluationScope(request, await ctx.params, kbParams);
  const input = await parseJsonBody(request, body, BODY_LIMIT);
  const parsed = "content" in input ? parseQuestionSet(input.format, input.content) : { questions: input.questions, errors: [], errorCount: 0 };
  return ok(await createSet(kb_id, userId, input.name, parsed));
});
