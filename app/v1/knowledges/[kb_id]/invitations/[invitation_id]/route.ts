import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { id } from "@/lib/api/schemas";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { revokeInvitation } from "@/lib/auth/members";
import { requirePrincipal } from "@/lib/auth/session";

export const runtime = "nodejs";

const params = z.object({ kb_id: id, invitation_id: id });

export const DELETE = apiRoute<z.infer<typeof params>>(async (request, ctx) => {
  const { kb_id, invitation_id } = parseParams(await ctx.params, params);
  const { user } = await requirePrincipal(request);
  await requireKnowledgeAccess(user.id, kb_id, "manage");
  await revokeInvitation(kb_id, invitation_id);
  return ok({ id: invitation_id, revoked: true });
});
