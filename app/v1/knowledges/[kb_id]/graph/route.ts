import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { graphScope, type GraphParams } from "@/lib/api/graph-scope";
import { parseJsonBody } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { graphOverview } from "@/lib/graph/query";
import { updateGraphSettings } from "@/lib/graph/settings";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const settingsBody = z
  .object({ enabled: z.boolean().optional(), model_enabled: z.boolean().optional() })
  .strict()
  .refine((b) => b.enabled !== undefined || b.model_enabled !== undefined, "give enabled or model_enabled");

// The KB's graph: setting, state (disabled | empty | building | ready | failed), counts, and
// each file's graph stage (status, progress, tokens, failure reason).
export const GET = apiRoute<GraphParams>(async (request, ctx) => {
  const { db, kbId } = await graphScope(request, ctx.params, "read");
  return ok(await graphOverview(db, kbId));
});

export const PATCH = apiRoute<GraphParams>(async (request, ctx) => {
  const body = await parseJsonBody(request, settingsBody, 4 * 1024);
  const { db, kbId } = await graphScope(request, ctx.params, "write");
  await updateGraphSettings(db, kbId, { enabled: body.enabled, modelEnabled: body.model_enabled });
  return ok(await graphOverview(db, kbId));
});
