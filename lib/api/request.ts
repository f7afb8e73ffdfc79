import type { z } from "zod";
import { AppError } from "@/lib/errors";
import { zodToAppError } from "./envelope";

const DEFAULT_JSON_LIMIT = 64 * 1024;

/** Reads at most `maxBytes` of a JSON body, then validates it with a strict zod schema. */
export async function parseJsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
  maxBytes = DEFAULT_JSON_LIMIT,
): Promise<z.infer<S>> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new AppError("INVALID_PARAMS", "Content-Type must be application/json.");
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new AppError("PAYLOAD_TOO_LARGE", `The body exceeds ${maxBytes} bytes.`);
  const text = await readLimited(request, maxBytes);
  let raw: unknown;
  try {
    raw = text.length === 0 ? {} : JSON.parse(text);
  } catch {
    throw new AppError("INVALID_PARAMS", "The body is not valid JSON.");
  }
  assertNoNul(raw);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw zodToAppError(parsed.error);
  return parsed.data;
}

/**
 * PostgreSQL text cannot hold U+0000, so a NUL anywhere in the input (question, KB name, token
 * name, e-mail, a query or path parameter) would fail deep in the database as INTERNAL_ERROR.
 * It is refused up front, naming the field.
 */
export function assertNoNul(value: unknown, path: string[] = []): void {
  if (typeof value === "string") {
    if (value.includes("\u0000")) {
      const field = path.length ? path.join(".") : undefined;
      throw new AppError("INVALID_PARAMS", field ? `Invalid field "${field}": must not contain NUL characters.` : "The request must not contain NUL characters.", { field });
    }
    return;
  }
  if (Array.isArray(value)) value.forEach((v, i) => assertNoNul(v, [...path, String(i)]));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      assertNoNul(k, path);
      assertNoNul(v, [...path, k]);
    }
  }
}

/**
 * Reads at most `maxBytes` (PAYLOAD_TOO_LARGE beyond) and parses JSON without a schema, for
 * protocols that answer bad JSON in their own format (MCP's JSON-RPC parse error).
 */
export async function readLimitedJson(request: Request, maxBytes: number): Promise<{ ok: true; value: unknown } | { ok: false }> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new AppError("PAYLOAD_TOO_LARGE", `The body exceeds ${maxBytes} bytes.`);
  const text = await readLimited(request, maxBytes);
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

async function readLimited(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new AppError("PAYLOAD_TOO_LARGE", `The body exceeds ${maxBytes} bytes.`);
    }
    chunks.push(value);
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks));
}

export function parseQuery<S extends z.ZodType>(request: Request, schema: S): z.infer<S> {
  const params = Object.fromEntries(new URL(request.url).searchParams.entries());
  assertNoNul(params);
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw zodToAppError(parsed.error);
  return parsed.data;
}

export function parseParams<S extends z.ZodType>(params: unknown, schema: S): z.infer<S> {
  assertNoNul(params);
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw zodToAppError(parsed.error);
  return parsed.data;
}
