import "server-only";
// A fetch for the MCP SDK's transport with the outbound rules of the HTTP adapter (SPEC §12):
// http(s) only, every resolved address public (loopback only with the test-only allowance), the
// socket connected to the checked address, no redirects, and a cap on the bytes read. Built on
// node:http so the lookup can be ours; the body is streamed (MCP answers may be SSE).
import http from "node:http";
import https from "node:https";
import { Readable, Transform } from "node:stream";
import { checkPublicHttpUri, UnsafeTargetError, type LookupFn } from "../uri-safety";
import { ProviderHttpError, safeLookup } from "./http-provider";

export interface SafeFetchOptions {
  allowLoopback?: boolean;
  lookup?: LookupFn;
  maxResponseBytes: number;
}

export function createSafeFetch(opts: SafeFetchOptions) {
  return async function safeFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
    const check = checkPublicHttpUri(String(input), { allowLoopback: opts.allowLoopback });
    if (!check.ok) throw new UnsafeTargetError(`Refusing provider URL (${check.reason})`);
    const url = check.url;
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    const body = init.body == null ? undefined : typeof init.body === "string" ? init.body : String(init.body);
    if (body !== undefined) headers["content-length"] = Buffer.byteLength(body).toString();
    const mod = url.protocol === "https:" ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const req = mod.request(
        url,
        { method: init.method ?? "GET", headers, lookup: safeLookup(opts), signal: init.signal ?? undefined, agent: false },
        (res) => {
          const status = res.statusCode ?? 0;
          if (status >= 300 && status < 400) {
            res.resume();
            reject(new ProviderHttpError("REDIRECT_REFUSED", `MCP server answered ${status}; redirects are not followed`));
            return;
          }
          let size = 0;
          const limit = new Transform({
            transform(chunk: Buffer, _enc, cb) {
              size += chunk.length;
              if (size > opts.maxResponseBytes) cb(new ProviderHttpError("RESPONSE_TOO_LARGE", `response larger than ${opts.maxResponseBytes} bytes`));
              else cb(null, chunk);
            },
          });
          res.on("error", (e) => limit.destroy(e));
          res.pipe(limit);
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") h.set(k, v);
          const nobody = status === 204 || status === 304 || init.method === "HEAD";
          resolve(
            new Response(nobody ? null : (Readable.toWeb(limit) as ReadableStream<Uint8Array>), { status, statusText: res.statusMessage, headers: h }),
          );
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  };
}
