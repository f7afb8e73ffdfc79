import "server-only";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { AppError } from "@/lib/errors";

// Slows password guessing: 10 attempts per minute per e-mail and 30 per client address.
// In memory per process; several instances would use the library's Postgres store instead.
const byEmail = new RateLimiterMemory({ points: 10, duration: 60 });
const byClient = new RateLimiterMemory({ points: 30, duration: 60 });

function clientKey(request: Request): string {
  return request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() || "direct";
}

export async function limitAuthAttempt(request: Request, email: string): Promise<void> {
  try {
    await Promise.all([byEmail.consume(email.toLowerCase()), byClient.consume(clientKey(request))]);
  } catch {
    throw new AppError("RATE_LIMITED");
  }
}
