import { ok } from "@/lib/api/envelope";
import { apiRoute } from "@/lib/api/route";
import { requirePrincipal } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { knowledgeTree } from "@/lib/db/knowledges";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiRoute(async (request) => {
  const { user } = await requirePrincipal(request);
  return ok({ items: await knowledgeTree(await getDb(), user.id) });
});
