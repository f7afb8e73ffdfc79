import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { id } from "@/lib/api/schemas";
import { revokeApiToken } from "@/lib/auth/api-tokens";
import { requirePrincipal } from "@/lib/auth/session";

export const runtime = "nodejs";

const params = z.object({ token_id: id });

export const DELETE = apiRoute<z.infer<typeof params>>(async (request, ctx) => {
  const { token_id } = parseParams(await ctx.params, params);
  const { user } = await requirePrincipal(request);
  await revokeApiToken(user.id, token_id);
  return ok({ id: token_id, revoked: true });
});
