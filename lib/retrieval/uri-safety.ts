// URI and address safety (pure apart from the optional DNS lookup helper).
// Citations keep only public http(s) URIs; provider adapters connect only to public addresses.
import { lookup as dnsLookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

export type UriCheck = { ok: true; url: URL } | { ok: false; reason: string };

const MAX_URI_CHARS = 2048;
// Names that resolve to the machine itself or to a private namespace by convention.
const BLOCKED_SUFFIXES = [".localhost", ".local", ".internal", ".intranet", ".lan", ".home.arpa", ".corp", ".private"];
const BLOCKED_NAMES = new Set(["localhost", "metadata", "metadata.google.internal", "instance-data"]);

/**
 * Is this IP address publicly routable unicast? Loopback, private (RFC 1918, ULA), link-local,
 * CGNAT, unspecified, broadcast, multicast, reserved, documentation ranges and IPv4-mapped/
 * NAT64/6to4/Teredo forms of any of them are not.
 */
export function isPublicAddress(address: string): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  } catch {
    return false;
  }
  if (addr.kind() === "ipv6") {
    const v6 = addr as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return isPublicAddress(v6.toIPv4Address().toString());
    const range = v6.range();
    if (range === "rfc6052" || range === "6to4" || range === "teredo") {
      // Embedded IPv4 (NAT64 64:ff9b::/96, 6to4 2002::/16): judge the embedded address.
      const parts = v6.toByteArray();
      const embedded =
        range === "6to4" ? parts.slice(2, 6) : range === "rfc6052" ? parts.slice(12, 16) : parts.slice(12, 16).map((b) => b ^ 0xff);
      return isPublicAddress(embedded.join("."));
    }
    return range === "unicast";
  }
  return (addr as ipaddr.IPv4).range() === "unicast";
}

export function isLoopbackAddress(address: string): boolean {
  try {
    let addr = ipaddr.parse(address.replace(/^\[|\]$/g, ""));
    if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
    return addr.range() === "loopback";
  } catch {
    return false;
  }
}

function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ""));
}

/** Hostname is an IP literal → judge it; a name → reject local/intranet names (DNS is checked at connect time). */
export function checkHostname(hostname: string, opts: { allowLoopback?: boolean } = {}): string | null {
  const host = hostname.toLowerCase().replace(/\.+$/, ""); // "localhost." is localhost
  if (!host) return "empty host";
  if (isIpLiteral(host)) {
    if (isPublicAddress(host)) return null;
    if (opts.allowLoopback && isLoopbackAddress(host)) return null;
    return "private, loopback or reserved address";
  }
  if (BLOCKED_NAMES.has(host) || BLOCKED_SUFFIXES.some((s) => host.endsWith(s))) {
    if (opts.allowLoopback && (host === "localhost" || host.endsWith(".localhost"))) return null;
    return "local host name";
  }
  // A single-label name ("intranet", "db") resolves through the local search domain.
  if (!host.includes(".")) return "single-label host name";
  if (!/^[a-z0-9.-]+$/.test(host) || host.split(".").some((l) => !l || l.length > 63 || l.startsWith("-") || l.endsWith("-"))) {
    return "invalid host name";
  }
  // All-numeric last label that did not parse as an IP (e.g. "1.2.3.4.5") is not a public name.
  if (/^\d+$/.test(host.split(".").pop()!)) return "numeric host name";
  return null;
}

/**
 * Accepts only absolute http(s) URLs without credentials whose host is a public name or a
 * public IP literal. The raw string is screened before parsing: backslashes, whitespace and
 * control characters are rejected because browsers and servers disagree on how to read them
 * (`http://127.0.0.1:6666\@example.com` is 127.0.0.1 to a WHATWG parser, example.com to others).
 */
export function checkPublicHttpUri(raw: unknown, opts: { allowLoopback?: boolean } = {}): UriCheck {
  if (typeof raw !== "string" || !raw) return { ok: false, reason: "not a string" };
  if (raw.length > MAX_URI_CHARS) return { ok: false, reason: "too long" };
  if (/[\\\s\u0000-\u001f\u007f]/.test(raw)) return { ok: false, reason: "backslash, whitespace or control character" };
  if (!/^https?:\/\//i.test(raw)) return { ok: false, reason: "not http(s)" };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "unparsable" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: "not http(s)" };
  if (url.username || url.password || /^https?:\/\/[^/?#]*@/i.test(raw)) {
    return { ok: false, reason: "credentials in URI" };
  }
  const hostProblem = checkHostname(url.hostname, opts);
  if (hostProblem) return { ok: false, reason: hostProblem };
  return { ok: true, url };
}

/** The normalized href of a public http(s) URI, or null. */
export function publicHttpUriOrNull(raw: unknown): string | null {
  const r = checkPublicHttpUri(raw);
  return r.ok ? r.url.href : null;
}

export class UnsafeTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnsafeTargetError";
  }
}

export type LookupFn = (host: string) => Promise<{ address: string; family: number }[]>;

const defaultLookup: LookupFn = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * Resolves a host and checks EVERY address (a name with one public and one private record is
 * refused). Returns the checked addresses; the caller connects only to those.
 */
export async function resolvePublicAddresses(
  hostname: string,
  opts: { allowLoopback?: boolean; lookup?: LookupFn } = {},
): Promise<{ address: string; family: number }[]> {
  const host = hostname.replace(/^\[|\]$/g, "");
  const ok = (a: string) => isPublicAddress(a) || (opts.allowLoopback === true && isLoopbackAddress(a));
  if (ipaddr.isValid(host)) {
    if (!ok(host)) throw new UnsafeTargetError(`Refusing to connect to non-public address ${host}`);
    return [{ address: host, family: host.includes(":") ? 6 : 4 }];
  }
  const addrs = await (opts.lookup ?? defaultLookup)(host);
  if (!addrs.length) throw new UnsafeTargetError(`${host} did not resolve`);
  for (const a of addrs) {
    if (!ok(a.address)) throw new UnsafeTargetError(`Refusing to connect: ${host} resolves to non-public address ${a.address}`);
  }
  return addrs;
}
