import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { withSignInLimits } from "@/lib/auth/rate-limit";
import { sessionCookie, sessionTokenFrom, signIn } from "@/lib/auth/session";

export const runtime = "nodejs";

const body = z
  .object({
    email: z.string().trim().toLowerCase().max(254),
    password: z.string().min(1).max(200),
  })
  .strict();

export const POST = apiRoute(async (request) => {
  const input = await parseJsonBody(request, body);
  const session = await withSignInLimits(request, input.email, () => signIn(input, sessionTokenFrom(request)));
  return ok({ user: session.user }, { headers: { "Set-Cookie": sessionCookie(request, session.token, session.expiresAt) } });
});
