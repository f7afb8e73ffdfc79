import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseParams, parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { listProviderDocuments } from "@/lib/assistant/knowledge-sources";
import { requirePrincipal } from "@/lib/auth/session";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const params = z.object({ provider: z.string().regex(/^[a-z0-9-]{1,64}$/, "must be a provider key") });
const opt = (max: number) => z.string().min(1).max(max).optional().transform((v) => v ?? null);
const query = z
  .object({ source_id: opt(200), parent_id: opt(200), cursor: opt(512), limit: z.coerce.number().int().min(1).max(100).default(50) })
  .strict();

export const GET = apiRoute<{ provider: string }>(async (request, ctx) => {
  const { provider } = parseParams(await ctx.params, params);
  const q = parseQuery(request, query);
  const { user } = await requirePrincipal(request);
  return ok(await listProviderDocuments(user.id, provider, q, request.signal));
});
