// A tiny typed HTTP client over fetch that unwraps the {code, msg, data} envelope (SPEC §4).
// Business failures arrive with HTTP 200 and a string code, so status alone is never enough.

export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, message: string, status: number) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

export function isUnauthenticated(e: unknown): boolean {
  return isApiError(e) && (e.status === 401 || e.code === "UNAUTHENTICATED");
}

interface Envelope<T> {
  code: number | string;
  msg: string;
  data: T;
}

function looksLikeEnvelope(v: unknown): v is Envelope<unknown> {
  return typeof v === "object" && v !== null && "code" in v && "msg" in v;
}

/** Reads an envelope from a response; throws ApiError for any non-zero code or non-JSON body. */
export async function unwrapEnvelope<T>(res: Response): Promise<T> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new ApiError(res.status === 401 ? "UNAUTHENTICATED" : "INTERNAL_ERROR", `HTTP ${res.status}`, res.status);
  }
  if (!looksLikeEnvelope(body)) throw new ApiError("INTERNAL_ERROR", `Unexpected response (HTTP ${res.status})`, res.status);
  if (body.code !== 0) throw new ApiError(String(body.code), body.msg, res.status);
  return body.data as T;
}

type Json = Record<string, unknown> | unknown[];

export interface RequestOptions {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  body?: Json;
  signal?: AbortSignal;
}

export async function api<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const method = opts.method ?? "GET";
  const headers: Record<string, string> = { Accept: "application/json" };
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(opts.body);
  }
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body, signal: opts.signal, credentials: "same-origin", cache: "no-store" });
  } catch (e) {
    if ((e as Error)?.name === "AbortError") throw e;
    throw new ApiError("NETWORK_ERROR", (e as Error)?.message ?? "Network error", 0);
  }
  return unwrapEnvelope<T>(res);
}

export function kbPath(kbId: string, rest = ""): string {
  return `/v1/knowledges/${encodeURIComponent(kbId)}${rest}`;
}
