import { assertAllowedHost } from "@/lib/api/allowed-host";
import { toErrorResponse } from "@/lib/api/envelope";

// Runs before every request (pages, assets, route handlers): a Host this server is not configured
// to serve is refused with 421 and the envelope, so a DNS-rebinding page gets nothing — not even
// the HTML shell. Route handlers check again in apiRoute (defence in depth, and the integration
// server has no proxy).
export function proxy(request: Request): Response | undefined {
  try {
    assertAllowedHost(request);
  } catch (e) {
    return toErrorResponse(e);
  }
  return undefined;
}
