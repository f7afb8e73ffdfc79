import { getBootstrap } from "@/lib/assistant/bootstrap";
import { ok } from "@/lib/api/envelope";
import { parseParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { kbParams } from "@/lib/api/schemas";
import { requirePrincipal } from "@/lib/auth/session";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id } = parseParams(await ctx.params, kbParams);
  const { user } = await requirePrincipal(request);
  return ok(await getBootstrap(user.id, kb_id));
});
