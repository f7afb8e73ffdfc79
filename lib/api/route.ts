import { assertAllowedHost } from "./allowed-host";
import { toErrorResponse } from "./envelope";
import { assertSameOrigin } from "./same-origin";

export interface RouteContext<P> {
  params: Promise<P>;
}

type Handler<P> = (request: Request, ctx: RouteContext<P>) => Promise<Response>;

/**
 * Wraps a route handler: the Host allow-list (DNS rebinding; proxy.ts checks it for pages too),
 * cross-site check for state-changing methods and the one mapping of thrown errors to the envelope. Authentication and access stay explicit in each handler.
 */
export function apiRoute<P = Record<string, never>>(fn: Handler<P>): Handler<P> {
  return async (request, ctx) => {
    try {
      assertAllowedHost(request);
      assertSameOrigin(request);
      return await fn(request, ctx);
    } catch (e) {
      return toErrorResponse(e);
    }
  };
}
