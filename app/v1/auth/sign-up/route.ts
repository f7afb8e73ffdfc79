import { z } from "zod";
import { ok } from "@/lib/api/envelope";
import { parseJsonBody } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { signUp } from "@/lib/auth/session";
import { limitSignUp } from "@/lib/auth/rate-limit";

export const runtime = "nodejs";

const body = z
  .object({
    email: z.string().trim().toLowerCase().email("must be an e-mail address").max(254),
    password: z.string().min(8, "password needs at least 8 characters").max(200),
    name: z.string().trim().max(100).default(""),
  })
  .strict();

// The same answer whether or not the e-mail already had an account, and no session: the
// client signs in next (POST /v1/auth/sign-in), which only the password's holder can do
// (docs/security.md "Account enumeration").
export const POST = apiRoute(async (request) => {
  const input = await parseJsonBody(request, body);
  await limitSignUp(request);
  await signUp(input);
  return ok({ email: input.email, next: "sign_in" as const }, { status: 202 });
});
