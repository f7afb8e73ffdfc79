import ipaddr from "ipaddr.js";
import { getEnv, type Env } from "@/lib/env";
import { AppError } from "@/lib/errors";

// DNS rebinding defence: a page on http://attacker.example:PORT whose name later resolves to
// 127.0.0.1 talks to this server as a same-origin page, and in local mode every request is the
// owner. The browser still sends `Host: attacker.example:PORT`, so only the names this server is
// configured to serve are accepted, on every request and in both auth modes (proxy.ts for pages
// and assets, apiRoute for the API). The port is not compared: a proxy in front may use another.

const WILDCARD_BINDS = new Set(["0.0.0.0", "::", "[::]"]);

/** "Example.COM.:443" → "example.com"; "[::1]:3000" → "::1". Null when unparseable. */
export function hostnameOf(hostHeader: string): string | null {
  const value = hostHeader.trim().toLowerCase();
  if (!value || value.length > 300) return null;
  let name: string;
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    if (end < 0) return null;
    const rest = value.slice(end + 1);
    if (rest && !/^:\d{1,5}$/.test(rest)) return null;
    name = value.slice(1, end);
    if (!/^[0-9a-f:.]+$/.test(name)) return null;
  } else {
    const m = /^([a-z0-9_.-]+)(?::\d{1,5})?$/.exec(value);
    if (!m) return null;
    name = m[1]!;
  }
  return name.replace(/\.$/, "") || null;
}

const cache = new WeakMap<Env, { names: Set<string>; anyIp: boolean }>();

function allowList(env: Env) {
  let entry = cache.get(env);
  if (!entry) {
    const names = new Set(["localhost", "127.0.0.1", "::1"]);
    const bind = env.HOST.trim().toLowerCase();
    // On a wildcard bind the server is reached by its addresses: an IP-literal Host cannot be a
    // rebinding (the page's origin is then that address itself), so IP literals are accepted.
    const anyIp = WILDCARD_BINDS.has(bind);
    if (!anyIp) {
      const h = hostnameOf(bind.includes(":") && !bind.startsWith("[") ? `[${bind}]` : bind);
      if (h) names.add(h);
    }
    if (env.PUBLIC_ORIGIN) names.add(new URL(env.PUBLIC_ORIGIN).hostname.replace(/^\[|\]$/g, "").toLowerCase());
    for (const item of env.ALLOWED_HOSTS.split(",")) {
      const h = hostnameOf(item);
      if (h) names.add(h);
    }
    entry = { names, anyIp };
    cache.set(env, entry);
  }
  return entry;
}

export function isAllowedHost(hostHeader: string | null, env: Env = getEnv()): boolean {
  if (!hostHeader) return false;
  const name = hostnameOf(hostHeader);
  if (!name) return false;
  const { names, anyIp } = allowList(env);
  if (names.has(name)) return true;
  return anyIp && ipaddr.isValid(name) && (ipaddr.IPv4.isValidFourPartDecimal(name) || name.includes(":"));
}

/**
 * Throws HOST_NOT_ALLOWED (HTTP 421) unless the request's Host — and X-Forwarded-Host, when a
 * client or proxy sent one — names this server.
 */
export function assertAllowedHost(request: Request, env: Env = getEnv()): void {
  const host = request.headers.get("host");
  const forwarded = request.headers.get("x-forwarded-host");
  if (!isAllowedHost(host, env) || (forwarded !== null && forwarded !== host && !isAllowedHost(forwarded.split(",")[0]!, env))) {
    throw new AppError(
      "HOST_NOT_ALLOWED",
      "This server does not answer to that host name. An operator can add it to ALLOWED_HOSTS or PUBLIC_ORIGIN.",
    );
  }
}
