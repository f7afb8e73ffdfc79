import { ZodError } from "zod";
import { AppError, isAppError, publicMessageOf, type ErrorCode } from "@/lib/errors";

// Every JSON response is {code, msg, data} (SPEC §4). Business failures keep HTTP 200;
// only a missing session (401) and a body rejected for size (413) use another status.
export interface Envelope<T> {
  code: 0 | ErrorCode;
  msg: string;
  data: T | null;
}

const JSON_HEADERS = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" };

export function ok<T>(data: T, init?: ResponseInit): Response {
  const body: Envelope<T> = { code: 0, msg: "success", data };
  return new Response(JSON.stringify(body, bigintSafe), {
    ...init,
    headers: { ...JSON_HEADERS, ...(init?.headers ?? {}) },
  });
}

function bigintSafe(_key: string, value: unknown) {
  return typeof value === "bigint" ? Number(value) : value;
}

function statusFor(code: ErrorCode): number {
  if (code === "UNAUTHENTICATED") return 401;
  if (code === "PAYLOAD_TOO_LARGE") return 413;
  // 421 Misdirected Request: a Host header this server does not serve (DNS rebinding).
  if (code === "HOST_NOT_ALLOWED") return 421;
  return 200;
}

export function zodToAppError(e: ZodError): AppError {
  const first = e.issues[0];
  const field = first && first.path.length > 0 ? first.path.join(".") : undefined;
  let message: string;
  if (first?.code === "unrecognized_keys") {
    message = `Unknown field(s): ${first.keys.join(", ")}`;
  } else if (field) {
    message = `Invalid field "${field}": ${first?.message}`;
  } else {
    message = first?.message ?? "Invalid request";
  }
  return new AppError("INVALID_PARAMS", message, { field });
}

export function toErrorResponse(e: unknown): Response {
  const err = isAppError(e) ? e : e instanceof ZodError ? zodToAppError(e) : null;
  if (!err) {
    // Unknown failures are logged server-side; the client gets no internals.
    console.error("[api] unhandled error", e);
  }
  const code: ErrorCode = err?.code ?? "INTERNAL_ERROR";
  const body: Envelope<null> = { code, msg: err ? publicMessageOf(err) : "Something went wrong on our side.", data: null };
  return new Response(JSON.stringify(body), { status: statusFor(code), headers: JSON_HEADERS });
}

/** A business failure that still carries data (e.g. per-file upload results). */
export function failWith<T>(code: ErrorCode, msg: string, data: T): Response {
  const body: Envelope<T> = { code, msg, data };
  return new Response(JSON.stringify(body, bigintSafe), { status: statusFor(code), headers: JSON_HEADERS });
}
