import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { listApiTokens } from "@/lib/auth/api-tokens";
import { createApiToken, requirePrincipal, TOKEN_SCOPES } from "@/lib/auth/session";
import { id } from "@/lib/api/schemas";
import { AppError } from "@/lib/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const body = z
  .object({
    name: z.string().trim().min(1).max(100),
    // "read": retrieval and MCP tools only; "full": acts as the user everywhere.
    scope: z.enum(TOKEN_SCOPES).default("full"),
    // Narrows the token to these KBs (must be readable by the user); empty = all of them.
    knowledge_ids: z.array(id).max(50).default([]),
  })
  .strict();

export const GET = apiRoute(async (request) => {
  const { user } = await requirePrincipal(request);
  return ok({ items: await listApiTokens(user.id) });
});

// Tokens let agents and other instances call the provider endpoint; the secret is shown once.
export const POST = apiRoute(async (request) => {
  const principal = await requirePrincipal(request);
  if (principal.sessionId.startsWith("token:")) throw new AppError("FORBIDDEN", "A token cannot mint tokens.");
  const input = await parseJsonBody(request, body);
  return ok(await createApiToken(principal.user.id, input.name, { scope: input.scope, knowledgeIds: input.knowledge_ids }));
});
