import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseParams, parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { openExternalSource } from "@/lib/assistant/knowledge-sources";
import { requirePrincipal } from "@/lib/auth/session";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const params = z.object({ provider: z.string().regex(/^[a-z0-9-]{1,64}$/, "must be a provider key") });
const query = z.object({ source_id: z.string().min(1).max(256) }).strict();

// Resolves a reference's source at open time (snapshots keep no raw URL, seed 002).
export const GET = apiRoute<{ provider: string }>(async (request, ctx) => {
  const { provider } = parseParams(await ctx.params, params);
  const { source_id } = parseQuery(request, query);
  const { user } = await requirePrincipal(request);
  return ok(await openExternalSource(user.id, provider, source_id, request.signal));
});
