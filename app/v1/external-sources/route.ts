import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseQuery } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { providerStatuses } from "@/lib/assistant/knowledge-sources";
import { requirePrincipal } from "@/lib/auth/session";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// The configured providers with label, capabilities and health (never URLs or secrets), for the
// UI and operators; `refresh=true` calls health() now instead of using the last 30 s result.
const query = z.object({ refresh: z.enum(["true", "false"]).default("false") }).strict();

export const GET = apiRoute(async (request) => {
  const { refresh } = parseQuery(request, query);
  await requirePrincipal(request);
  return ok(await providerStatuses(refresh === "true"));
});
