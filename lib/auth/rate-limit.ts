import "server-only";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { AppError, isAppError } from "@/lib/errors";
import { clientAddress } from "./client-address";

// Sign-in and sign-up throttling (OWASP Authentication Cheat Sheet, "Protect against automated
// attacks"), three separate limits so that no one can lock out someone else:
//   - per client address (TRUSTED_PROXIES decides what the address is): 30 attempts a minute,
//     then RATE_LIMITED — one noisy client does not slow anyone else;
//   - per account and client: 10 failed sign-ins in 15 minutes, then that client is refused
//     for that account (RATE_LIMITED) — the owner signing in from elsewhere is not;
//   - per account, over all clients: after 10 failures in 15 minutes every further attempt on
//     the account waits ACCOUNT_SLOWDOWN_MS before the password is checked — a correct password
//     still signs in, a distributed guesser is slowed, nobody is locked out.
// Successful sign-in clears the account's counters. In memory per process, on globalThis because
// Next bundles this module into each route's chunk; several instances would use the library's
// PostgreSQL store instead.
export const ACCOUNT_SLOWDOWN_MS = 1000;
const FAILURE_WINDOW_S = 15 * 60;

interface Limiters {
  byClient: RateLimiterMemory;
  byAccountClient: RateLimiterMemory;
  byAccount: RateLimiterMemory;
}
const g = globalThis as unknown as { __kaAuthLimiters?: Limiters };
function limiters(): Limiters {
  g.__kaAuthLimiters ??= {
    byClient: new RateLimiterMemory({ keyPrefix: "client", points: 30, duration: 60 }),
    byAccountClient: new RateLimiterMemory({ keyPrefix: "account-client", points: 10, duration: FAILURE_WINDOW_S }),
    byAccount: new RateLimiterMemory({ keyPrefix: "account", points: 10, duration: FAILURE_WINDOW_S }),
  };
  return g.__kaAuthLimiters;
}

function rateLimited(res: unknown): AppError {
  const seconds = res instanceof RateLimiterRes ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : 60;
  return new AppError("RATE_LIMITED", `Too many attempts; try again in ${seconds} s.`, { retryAfterSeconds: seconds });
}

async function consumeClient(client: string): Promise<void> {
  try {
    await limiters().byClient.consume(client);
  } catch (res) {
    throw rateLimited(res);
  }
}

/** Sign-up: the per-client limit only (an e-mail that is not yet an account has nothing to guard). */
export async function limitSignUp(request: Request): Promise<void> {
  await consumeClient(clientAddress(request));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs a sign-in under the three limits. `attempt` throws AppError("INVALID_CREDENTIALS") for a
 * wrong e-mail or password; that failure is counted, anything else is not.
 */
export async function withSignInLimits<T>(request: Request, email: string, attempt: () => Promise<T>): Promise<T> {
  const client = clientAddress(request);
  const account = email.trim().toLowerCase();
  const pair = `${account}|${client}`;
  const l = limiters();
  await consumeClient(client);
  const pairState = await l.byAccountClient.get(pair);
  if (pairState && pairState.consumedPoints >= 10) throw rateLimited(pairState);
  const accountState = await l.byAccount.get(account);
  if (accountState && accountState.consumedPoints >= 10) await sleep(ACCOUNT_SLOWDOWN_MS);
  try {
    const result = await attempt();
    await Promise.all([l.byAccountClient.delete(pair), l.byAccount.delete(account)]);
    return result;
  } catch (e) {
    if (isAppError(e) && e.code === "INVALID_CREDENTIALS") {
      // Counting never refuses by itself (the checks above do): penalty, not consume-and-throw.
      await Promise.all([l.byAccountClient.penalty(pair, 1), l.byAccount.penalty(account, 1)]);
    }
    throw e;
  }
}

/** Tests only: forget all counters. */
export function resetAuthLimitsForTests(): void {
  g.__kaAuthLimiters = undefined;
}
