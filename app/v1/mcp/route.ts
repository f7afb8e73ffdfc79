import { toErrorResponse } from "@/lib/api/envelope";
import { readLimitedJson } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { accessTargets } from "@/lib/auth/access";
import { requirePrincipal } from "@/lib/auth/session";
import { AppError } from "@/lib/errors";
import { handleMcpPost } from "@/lib/tools/mcp-server";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** MCP messages are small; 1 MB of arguments is refused before parsing. */
const MAX_MCP_BODY = 256 * 1024;

// MCP server (Streamable HTTP, stateless) for outside agents: API token as a bearer token, no
// session cookie (a page on another site cannot drive it with the user's cookie).
export const POST = apiRoute(async (request) => {
  if (!request.headers.get("authorization")?.startsWith("Bearer ")) {
    return withChallenge(toErrorResponse(new AppError("UNAUTHENTICATED", "An API token is required (Authorization: Bearer <token>).")));
  }
  let principal;
  try {
    // Read-scope and KB-narrowed tokens are made for this: every tool only reads.
    principal = await requirePrincipal(request, { allowLimitedToken: true });
  } catch (e) {
    return withChallenge(toErrorResponse(e));
  }
  const body = await readLimitedJson(request, MAX_MCP_BODY);
  if (!body.ok) return jsonRpcParseError();
  const ctx = { userId: principal.user.id, readableKnowledgeIds: await accessTargets(principal), signal: request.signal };
  return handleMcpPost(request, body.value, ctx, principal.sessionId);
});

// Stateless: no server-initiated stream and no session to delete (the spec allows 405).
const notAllowed = async () =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: POST JSON-RPC messages to this endpoint." }, id: null }), {
    status: 405,
    headers: { Allow: "POST", "Content-Type": "application/json" },
  });
export const GET = notAllowed;
export const DELETE = notAllowed;

function withChallenge(res: Response): Response {
  res.headers.set("WWW-Authenticate", 'Bearer realm="knowledge-assistant"');
  return res;
}

function jsonRpcParseError(): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error: the body is not valid JSON." }, id: null }), {
    status: 400,
    headers: { "Content-Type": "application/json" },
  });
}
