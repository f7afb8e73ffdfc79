import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { id } from "@/lib/api/schemas";
import { answerListingRequest } from "@/lib/assistant/provider-endpoint";
import { AppError } from "@/lib/errors";
import { requirePrincipal } from "@/lib/auth/session";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// The documented listing request (docs/external-sources.md): no source_id lists the token
// user's KBs, a source_id lists that KB's files; one provider's own pages (per_provider).
const body = z
  .object({
    source_id: id.nullable().default(null),
    parent_id: z.string().max(200).nullable().default(null),
    cursor: z.string().max(512).nullable().default(null),
    limit: z.number().int().min(1).max(100).default(50),
  })
  .strict();

export const POST = apiRoute(async (request) => {
  if (!request.headers.get("authorization")?.startsWith("Bearer ")) throw new AppError("UNAUTHENTICATED", "An API token is required.");
  // Listing is read-only: a read-only or KB-limited token may list (what it may read only).
  const principal = await requirePrincipal(request, { allowLimitedToken: true });
  const input = await parseJsonBody(request, body);
  return ok(
    await answerListingRequest(principal, { sourceId: input.source_id, parentId: input.parent_id, cursor: input.cursor, limit: input.limit }, request.signal),
  );
});
