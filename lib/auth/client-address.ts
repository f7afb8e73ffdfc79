import "server-only";
import ipaddr from "ipaddr.js";
import { getEnv, type Env } from "@/lib/env";
import { PEER_ADDRESS_HEADER } from "@/lib/server/peer-address";

// The client a request comes from, for rate limits. X-Forwarded-For is anyone's to write, so it
// is believed only hop by hop from the right while the hop that added it is a configured
// TRUSTED_PROXIES address; the first address not in that list is the client.

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];
const parsedRanges = new WeakMap<Env, Range[]>();

function parseAddress(raw: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const cleaned = raw.trim().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!ipaddr.isValid(cleaned)) return null;
  const addr = ipaddr.parse(cleaned);
  // ::ffff:10.0.0.1 (a dual-stack socket's view of an IPv4 peer) is that IPv4 address.
  return addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
}

/** TRUSTED_PROXIES: "10.0.0.1, 10.1.0.0/16, ::1". Throws on an entry that is not an address or range. */
export function parseTrustedProxies(value: string): Range[] {
  const out: Range[] = [];
  for (const item of value.split(",").map((s) => s.trim()).filter(Boolean)) {
    if (item.includes("/")) {
      const [a, bits] = ipaddr.parseCIDR(item);
      out.push([a.kind() === "ipv6" && (a as ipaddr.IPv6).isIPv4MappedAddress() ? (a as ipaddr.IPv6).toIPv4Address() : a, a.kind() === "ipv6" && (a as ipaddr.IPv6).isIPv4MappedAddress() ? bits - 96 : bits]);
    } else {
      const a = parseAddress(item);
      if (!a) throw new Error(`TRUSTED_PROXIES: "${item}" is not an IP address or CIDR range`);
      out.push([a, a.kind() === "ipv4" ? 32 : 128]);
    }
  }
  return out;
}

function ranges(env: Env): Range[] {
  let r = parsedRanges.get(env);
  if (!r) {
    r = parseTrustedProxies(env.TRUSTED_PROXIES);
    parsedRanges.set(env, r);
  }
  return r;
}

function isTrusted(addr: ipaddr.IPv4 | ipaddr.IPv6, list: Range[]): boolean {
  return list.some(([net, bits]) => net.kind() === addr.kind() && addr.match([net, bits] as never));
}

/** The client's address as text, or "unknown" when the server saw no peer. */
export function clientAddress(request: Request, env: Env = getEnv()): string {
  const peer = parseAddress(request.headers.get(PEER_ADDRESS_HEADER) ?? "");
  if (!peer) return "unknown";
  const trusted = ranges(env);
  if (!isTrusted(peer, trusted)) return peer.toString();
  const hops = (request.headers.get("x-forwarded-for") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseAddress(hops[i]!);
    // A garbled hop means the chain cannot be followed further: the last good hop is the client.
    if (!hop) break;
    client = hop;
    if (!isTrusted(hop, trusted)) break;
  }
  return client.toString();
}
