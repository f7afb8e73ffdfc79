import "server-only";
// HTTP adapter: POSTs the standard request (protocol v1) to a configured URL and returns the
// service's JSON for normalization. Outbound safety (SPEC §12): the URL must be http(s) without
// credentials; DNS is resolved by us and EVERY address must be public (loopback only with the
// explicit allowLoopback test option); the socket connects to the address we checked (no
// second lookup, so no DNS rebinding between check and connect); redirects are not followed
// automatically — 307/308 are followed at most MAX_REDIRECTS times, each target checked again.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { checkPublicHttpUri, resolvePublicAddresses, UnsafeTargetError, type LookupFn } from "../uri-safety";
import { unwrapEnvelope } from "../normalize";
import type { KnowledgeProvider, ListingRequest, ProviderCapabilities, ProviderContext, ProviderDescription, ProviderRequest } from "./protocol";

export interface HttpProviderOptions {
  key: string;
  label: string;
  url: string;
  /** Sent as `Authorization: Bearer …`; read from the environment by the caller, never stored. */
  token?: string;
  capabilities?: Partial<ProviderCapabilities>;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Tests only: permit loopback targets (never other private ranges). */
  allowLoopback?: boolean;
  /** Injected DNS (tests). */
  lookup?: LookupFn;
  healthUrl?: string;
  /** The documented listing request (docs/external-sources.md); set = capability list_documents. */
  listUrl?: string;
  /**
   * Where a person opens a source, as a template with `{source_id}` (operator configuration, not
   * provider data): resolved at open time, so snapshots never hold the raw URL.
   */
  openUrl?: string;
}

const MAX_REDIRECTS = 3;

export class ProviderHttpError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "ProviderHttpError";
    this.code = code;
  }
}

export function safeLookup(opts: Pick<HttpProviderOptions, "allowLoopback" | "lookup">): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    resolvePublicAddresses(hostname, { allowLoopback: opts.allowLoopback, lookup: opts.lookup }).then(
      (addrs) => {
        if (options?.all) cb(null, addrs);
        else cb(null, addrs[0]!.address, addrs[0]!.family);
      },
      (err) => cb(err),
    );
  }) as unknown as LookupFunction;
}

interface RawResponse {
  status: number;
  location: string | null;
  body: Buffer;
}

function once(url: URL, body: string, headers: Record<string, string>, opts: HttpProviderOptions, signal: AbortSignal): Promise<RawResponse> {
  const mod = url.protocol === "https:" ? https : http;
  const maxBytes = opts.maxResponseBytes ?? 2 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": Buffer.byteLength(body).toString() },
        lookup: safeLookup(opts),
        signal,
        timeout: opts.timeoutMs ?? 8000,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) {
            req.destroy(new ProviderHttpError("RESPONSE_TOO_LARGE", `response larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(c);
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, location: (res.headers.location as string | undefined) ?? null, body: Buffer.concat(chunks) }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new ProviderHttpError("TIMEOUT", "provider did not answer in time")));
    req.on("error", reject);
    req.end(body);
  });
}

/** POST JSON with the safety rules above; returns the parsed JSON body of a 2xx answer. */
export async function safePostJson(
  target: string,
  payload: unknown,
  opts: HttpProviderOptions,
  signal: AbortSignal,
  extraHeaders: Record<string, string> = {},
): Promise<unknown> {
  let url = target;
  const body = JSON.stringify(payload);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const check = checkPublicHttpUri(url, { allowLoopback: opts.allowLoopback });
    if (!check.ok) throw new UnsafeTargetError(`Refusing provider URL (${check.reason})`);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
      ...extraHeaders,
    };
    // The token goes only to the configured origin, never to a redirect target elsewhere.
    if (opts.token && check.url.origin === new URL(target).origin) headers.authorization = `Bearer ${opts.token}`;
    const res = await once(check.url, body, headers, opts, signal);
    if (res.status >= 300 && res.status < 400) {
      if ((res.status !== 307 && res.status !== 308) || !res.location) {
        throw new ProviderHttpError("REDIRECT_REFUSED", `provider answered ${res.status}; only 307/308 redirects are followed`);
      }
      url = new URL(res.location, check.url).href;
      continue;
    }
    if (res.status === 503 || res.status === 502 || res.status === 504) {
      throw new ProviderHttpError("PROVIDER_UNAVAILABLE", `provider answered HTTP ${res.status}`);
    }
    if (res.status < 200 || res.status >= 300) throw new ProviderHttpError("HTTP_ERROR", `provider answered HTTP ${res.status}`);
    try {
      return JSON.parse(res.body.toString("utf8"));
    } catch {
      throw new ProviderHttpError("BAD_JSON", "provider answered with invalid JSON");
    }
  }
  throw new ProviderHttpError("REDIRECT_REFUSED", "too many redirects");
}

/** Fills `{source_id}` in an open-URL template; the result must still be a plain http(s) URL. */
export function resolveOpenUrl(template: string, sourceId: string): string | null {
  const url = template.replaceAll("{source_id}", encodeURIComponent(sourceId));
  try {
    const u = new URL(url);
    if ((u.protocol !== "http:" && u.protocol !== "https:") || u.username || u.password) return null;
    return u.href;
  } catch {
    return null;
  }
}

export function createHttpProvider(opts: HttpProviderOptions): KnowledgeProvider {
  // Checked at construction (start-up), so a bad URL fails the boot, not a chat.
  for (const [name, url] of [["url", opts.url], ["listUrl", opts.listUrl], ["healthUrl", opts.healthUrl]] as const) {
    if (url === undefined) continue;
    const check = checkPublicHttpUri(url, { allowLoopback: opts.allowLoopback });
    if (!check.ok) throw new UnsafeTargetError(`Provider "${opts.key}": ${name} refused (${check.reason})`);
  }
  if (opts.openUrl !== undefined && !resolveOpenUrl(opts.openUrl, "x")) {
    throw new UnsafeTargetError(`Provider "${opts.key}": openUrl must be an http(s) URL without credentials`);
  }
  const description: ProviderDescription = {
    protocolVersion: 1,
    key: opts.key,
    label: opts.label,
    capabilities: {
      filters: opts.capabilities?.filters ?? false,
      scores: opts.capabilities?.scores ?? true,
      citations: opts.capabilities?.citations ?? true,
      // Backed by the listing request, never claimed without it.
      list_documents: Boolean(opts.listUrl),
    },
  };
  const listUrl = opts.listUrl;
  const openUrl = opts.openUrl;
  return {
    describe: () => description,
    async retrieve(request: ProviderRequest, context: ProviderContext) {
      // Only the standard request leaves the server; tenant identity stays here.
      const body: Record<string, unknown> = {
        query: request.query,
        topK: request.topK,
        knowledgeBaseIds: request.knowledgeBaseIds,
        filters: request.filters,
      };
      if (request.targets?.length) body.targets = request.targets;
      return safePostJson(opts.url, body, opts, context.signal, { "x-trace-id": context.traceId });
    },
    ...(listUrl
      ? {
          async listDocuments(request: ListingRequest, context: ProviderContext) {
            return safePostJson(
              listUrl,
              { source_id: request.sourceId, parent_id: request.parentId, cursor: request.cursor, limit: request.limit },
              opts,
              context.signal,
              { "x-trace-id": context.traceId },
            );
          },
        }
      : {}),
    ...(openUrl ? { resolveSource: async (sourceId: string) => resolveOpenUrl(openUrl, sourceId) } : {}),
    async health({ signal }) {
      if (!opts.healthUrl) return { status: "ready" };
      try {
        // An envelope with a non-zero code is a failing health check too.
        unwrapEnvelope(await safePostJson(opts.healthUrl, {}, opts, signal));
        return { status: "ready" };
      } catch (e) {
        return { status: "unavailable", message: (e as Error).message };
      }
    },
  };
}
