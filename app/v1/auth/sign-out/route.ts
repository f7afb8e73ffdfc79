import { ok } from "@/lib/api/envelope";
import { apiRoute } from "@/lib/api/route";
import { sessionCookie, sessionTokenFrom, signOut } from "@/lib/auth/session";

export const runtime = "nodejs";

export const POST = apiRoute(async (request) => {
  await signOut(sessionTokenFrom(request));
  return ok({ signed_out: true }, { headers: { "Set-Cookie": sessionCookie(request, "", null) } });
});
