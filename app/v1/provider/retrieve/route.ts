import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { id } from "@/lib/api/schemas";
import { answerProviderRequest, PROVIDER_DESCRIPTION } from "@/lib/assistant/provider-endpoint";
import { AppError } from "@/lib/errors";
import { requirePrincipal } from "@/lib/auth/session";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// The standard request of provider protocol v1, with the tool-facing bounds of SPEC §8. No
// knowledgeBaseIds (an all_accessible binding) means every KB the token's user may read.
const target = z
  .object({
    id,
    target_type: z.enum(["knowledge_base", "folder", "document"]),
    node_id: z.string().max(200).nullable().optional(),
    document_id: id.nullable().optional(),
    parent_id: z.string().max(200).nullable().optional(),
  })
  .strict();
const body = z
  .object({
    query: z.string().trim().min(1).max(2000),
    topK: z.number().int().min(1).max(8).default(8),
    knowledgeBaseIds: z.array(id).max(8).default([]),
    filters: z.object({ fileIds: z.array(id).max(100).nullable().optional() }).strict().nullable().optional(),
    targets: z.array(target).max(20).optional(),
  })
  .strict();

async function tokenPrincipal(request: Request) {
  // Machine-to-machine only: a browser session cannot use this endpoint (no bare retrieval
  // for the browser, SPEC §4).
  if (!request.headers.get("authorization")?.startsWith("Bearer ")) throw new AppError("UNAUTHENTICATED", "An API token is required.");
  // Read-scope and KB-narrowed tokens are made for this endpoint (and MCP): it changes nothing.
  return requirePrincipal(request, { allowLimitedToken: true });
}

export const GET = apiRoute(async (request) => {
  await tokenPrincipal(request);
  return ok(PROVIDER_DESCRIPTION);
});

export const POST = apiRoute(async (request) => {
  const principal = await tokenPrincipal(request);
  const input = await parseJsonBody(request, body);
  return ok(await answerProviderRequest(principal, input, request.signal));
});
