import { ok } from "@/lib/api/envelope";
import { apiRoute } from "@/lib/api/route";
import { requirePrincipal } from "@/lib/auth/session";
import { getEnv } from "@/lib/env";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute(async (request) => {
  const { user } = await requirePrincipal(request);
  return ok({ user, auth_mode: getEnv().AUTH_MODE });
});
