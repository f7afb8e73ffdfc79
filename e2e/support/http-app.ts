import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { installPeerAddressStamp } from "@/lib/server/peer-address";

// Serves the app's real route handlers (app/**/route.ts) over real HTTP for integration tests,
// without a Next build: each request becomes a web Request, each Response (JSON or SSE) is
// streamed back as it is produced. Routing mirrors Next's file conventions for [param] segments.
type RouteModule = Record<string, (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>>;

interface RouteEntry {
  pattern: RegExp;
  names: string[];
  staticScore: number;
  load: () => Promise<RouteModule>;
}

function collectRoutes(appDir: string): RouteEntry[] {
  const entries: RouteEntry[] = [];
  const walk = (dir: string, segments: string[]) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full, [...segments, name]);
      else if (name === "route.ts") {
        const names: string[] = [];
        const parts = segments
          .filter((s) => !/^\(.*\)$/.test(s))
          .map((s) => {
            const m = /^\[(.+)\]$/.exec(s);
            if (m) {
              names.push(m[1]!);
              return "([^/]+)";
            }
            return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
          });
        let loaded: Promise<RouteModule> | undefined;
        entries.push({
          pattern: new RegExp(`^/${parts.join("/")}/?$`),
          names,
          staticScore: segments.length - names.length,
          // Imported once: a dynamic import per request would go through the loader hooks again.
          load: () => (loaded ??= import(/* @vite-ignore */ full) as Promise<RouteModule>),
        });
      }
    }
  };
  walk(appDir, []);
  // Static segments win over dynamic ones, as in Next (e.g. /knowledges/tree vs /knowledges/[kb_id]).
  return entries.sort((a, b) => b.staticScore - a.staticScore);
}

export interface TestApp {
  baseUrl: string;
  close(): Promise<void>;
}

export async function startTestApp(
  appDir = path.resolve(process.cwd(), "app"),
  port = 0,
  opts: { keepAliveTimeoutMs?: number } = {},
): Promise<TestApp> {
  const routes = collectRoutes(appDir);
  // As the production server does at boot: the TCP peer's address in a header no client can set.
  installPeerAddressStamp();
  const server: Server = createServer((req, res) => void handle(req, res));
  if (opts.keepAliveTimeoutMs) server.keepAliveTimeout = opts.keepAliveTimeoutMs;
  const sockets = new Set<import("node:net").Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    const route = routes.find((r) => r.pattern.test(url.pathname));
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    const m = route.pattern.exec(url.pathname)!;
    const params = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
    const mod = await route.load();
    const fn = mod[req.method ?? "GET"];
    if (!fn) {
      res.writeHead(405).end();
      return;
    }
    const controller = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    // A handler that answers without reading the body (413, 403) must not leave unread bytes
    // on a keep-alive socket: drain them, as Next's own server does.
    res.on("finish", () => {
      if (!req.complete) req.resume();
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
      else if (v !== undefined) headers.set(k, v);
    }
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    // Multipart uploads stay streamed (upload limits are enforced while streaming); small
    // bodies are read first so an early answer never races the client's upload.
    const streamed = /^multipart\//i.test(req.headers["content-type"] ?? "");
    let body: BodyInit | undefined;
    if (hasBody && streamed) body = Readable.toWeb(req) as ReadableStream;
    else if (hasBody) {
      const parts: Buffer[] = [];
      for await (const part of req) parts.push(part as Buffer);
      body = Buffer.concat(parts);
    }
    const request = new Request(url, {
      method: req.method,
      headers,
      body,
      signal: controller.signal,
      // @ts-expect-error Node's fetch needs duplex for streamed request bodies.
      duplex: "half",
    });
    let response: Response;
    try {
      response = await fn(request, { params: Promise.resolve(params) });
    } catch (e) {
      console.error(e);
      res.writeHead(500).end();
      return;
    }
    const outHeaders: Record<string, string | string[]> = {};
    response.headers.forEach((v, k) => {
      if (k === "set-cookie") return;
      outHeaders[k] = v;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length) outHeaders["set-cookie"] = cookies;
    res.writeHead(response.status, outHeaders);
    if (!response.body) {
      res.end();
      return;
    }
    const reader = response.body.getReader();
    controller.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}));
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
    } catch {
      res.destroy();
    }
  }

  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const addr = server.address() as import("node:net").AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
