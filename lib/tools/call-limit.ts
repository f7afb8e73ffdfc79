import "server-only";

// Bounds how many tool calls one caller (an API token, a user) runs at once. A burst beyond the
// bound is answered at once with RATE_LIMITED instead of queueing on the database, so 100
// parallel calls from one token cost at most MAX_IN_FLIGHT tool runs. In memory per process, like
// the sign-in limiter (lib/auth/rate-limit.ts).
export const MAX_TOOL_CALLS_IN_FLIGHT = 8;

const inFlight = new Map<string, number>();

/** A release function, or null when the caller already has the maximum in flight. */
export function acquireToolSlot(key: string, max = MAX_TOOL_CALLS_IN_FLIGHT): (() => void) | null {
  const n = inFlight.get(key) ?? 0;
  if (n >= max) return null;
  inFlight.set(key, n + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (inFlight.get(key) ?? 1) - 1;
    if (left <= 0) inFlight.delete(key);
    else inFlight.set(key, left);
  };
}
