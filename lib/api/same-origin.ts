import { AppError } from "@/lib/errors";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * State-changing requests must not be forgeable cross-site (SPEC §12): they must carry JSON or
 * multipart (which a plain HTML form cannot send as JSON, and whose cross-site multipart is
 * stopped below), and when the browser tells us where the request came from, it must be us.
 * Non-browser clients (API tokens, curl) send neither header and are allowed.
 */
export function assertSameOrigin(request: Request): void {
  if (SAFE.has(request.method)) return;
  const site = request.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") {
    throw new AppError("FORBIDDEN", "Cross-site requests are not allowed.");
  }
  const origin = request.headers.get("origin");
  if (origin && origin !== "null") {
    const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      throw new AppError("FORBIDDEN", "Bad Origin header.");
    }
    if (!host || originHost !== host) throw new AppError("FORBIDDEN", "Cross-origin requests are not allowed.");
  } else if (origin === "null") {
    throw new AppError("FORBIDDEN", "Opaque-origin requests are not allowed.");
  }
  const type = request.headers.get("content-type") ?? "";
  const length = Number(request.headers.get("content-length") ?? "0");
  const hasBody = length > 0 || request.headers.has("transfer-encoding");
  if (hasBody && !/^(application\/json|multipart\/form-data)\b/i.test(type)) {
    throw new AppError("INVALID_PARAMS", "Content-Type must be application/json or multipart/form-data.");
  }
}
