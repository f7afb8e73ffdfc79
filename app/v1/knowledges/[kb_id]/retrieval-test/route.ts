import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody, parseParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { id, kbParams } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { AppError } from "@/lib/errors";
import { MAX_QUERY_CHARS } from "@/lib/retrieval/core";
import { runRetrievalTest } from "@/lib/retrieval/retrieval-test";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// The retrieval test page (owners and editors): the chat's retrieval for one question, with
// every score. Emptiness and length of `query` get MESSAGE_EMPTY / MESSAGE_TOO_LONG like chat.
const body = z
  .object({
    query: z.string({ error: "query must be a string" }),
    file_ids: z.array(id).max(100).nullable().default(null),
    top_k: z.number().int().min(1).max(20).nullable().default(null),
    min_score: z.number().min(0).max(1).nullable().default(null),
  })
  .strict();

export const POST = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id } = parseParams(await ctx.params, kbParams);
  const principal = await requirePrincipal(request);
  const input = await parseJsonBody(request, body);
  await requireKnowledgeAccess(principal.user.id, kb_id, "write");
  const query = input.query.trim(); // NUL was refused by parseJsonBody (INVALID_PARAMS)
  if (!query) throw new AppError("MESSAGE_EMPTY");
  if ([...query].length > MAX_QUERY_CHARS) throw new AppError("MESSAGE_TOO_LONG");
  return ok(await runRetrievalTest({ userId: principal.user.id, sessionId: principal.sessionId, knowledgeId: kb_id, signal: request.signal }, { ...input, query }));
});
