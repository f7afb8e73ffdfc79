import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody, parseParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { kbParams } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { listMembers, upsertMember } from "@/lib/auth/members";
import { requirePrincipal } from "@/lib/auth/session";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const body = z
  .object({
    email: z.string().trim().toLowerCase().email("must be an e-mail address").max(254),
    role: z.enum(["editor", "viewer"]),
    assistant_enabled: z.boolean().default(true),
  })
  .strict();

export const GET = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id } = parseParams(await ctx.params, kbParams);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "read");
  return ok(await listMembers(kb_id));
});

export const POST = apiRoute<{ kb_id: string }>(async (request, ctx) => {
  const { kb_id } = parseParams(await ctx.params, kbParams);
  const { user } = await requirePrincipal(request);
  const input = await parseJsonBody(request, body);
  await requireKnowledgeAccess(user.id, kb_id, "manage");
  // Answers alike whether or not the e-mail has an account (an invitation otherwise).
  return ok(await upsertMember(kb_id, input, user.id));
});
