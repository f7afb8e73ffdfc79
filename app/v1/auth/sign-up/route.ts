import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { signIn, signUp, sessionCookie } from "@/lib/auth/session";
import { limitSignUp } from "@/lib/auth/rate-limit";

export const runtime = "nodejs";

const body = z
  .object({
    email: z.string().trim().toLowerCase().email("must be an e-mail address").max(254),
    password: z.string().min(8, "password needs at least 8 characters").max(200),
    name: z.string().trim().max(100).default(""),
  })
  .strict();

export const POST = apiRoute(async (request) => {
  const input = await parseJsonBody(request, body);
  await limitSignUp(request);
  await signUp(input);
  const session = await signIn(input);
  return ok({ user: session.user }, { headers: { "Set-Cookie": sessionCookie(request, session.token, session.expiresAt) } });
});
