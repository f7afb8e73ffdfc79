import { z } from "zod";
import { prepareChatTurn, streamChatTurn } from "@/lib/assistant/chat";
import { SSE_HEADERS } from "@/lib/assistant/sse-writer";
import { parseJsonBody, parseParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { id, kbParams } from "@/lib/api/schemas";
import { requirePrincipal } from "@/lib/auth/session";
import { externalRefSchema } from "@/lib/assistant/external-refs";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// SPEC §5. Length and emptiness of `message` get their own codes (MESSAGE_EMPTY/TOO_LONG) in
// prepareChatTurn; everything else malformed is INVALID_PARAMS naming the field.
const body = z
  .object({
    message: z.string({ error: "message must be a string" }),
    top_k: z.number().int().min(1).max(20).default(8),
    file_ids: z.array(id).max(100).nullable().default(null),
    conversation_id: id.nullable().default(null),
    history_limit: z.number().int().min(0).max(20).default(6),
    // "agent": the model calls the knowledge tools (issue 17); refused when it cannot.
    answer_mode: z.enum(["grounded", "references_only", "creative", "agent"]).default("grounded"),
    use_query_rewrite: z.boolean().default(false),
    min_score: z.number().min(0).max(1).nullable().default(null),
    external_knowledge_refs: z.array(externalRefSchema).max(20).default([]),
    // Edit and resend / regenerate (issue 20): this question of `conversation_id` and every
    // later message are replaced by the new turn (a truncated branch, as ChatGPT does).
    replace_from_message_id: id.nullable().default(null),
  })
  .strict()
  .refine((b) => !b.replace_from_message_id || b.conversation_id, {
    message: "replace_from_message_id needs conversation_id",
    path: ["replace_from_message_id"],
  });

export const POST = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id } = parseParams(await ctx.params, kbParams);
  const principal = await requirePrincipal(request);
  const input = await parseJsonBody(request, body);
  const turn = await prepareChatTurn(principal, kb_id, input);
  return new Response(streamChatTurn(turn, request.signal), { headers: SSE_HEADERS });
});
