import { describe, expect, it } from "vitest";
import type { Env } from "@/lib/env";
import { hostnameOf, isAllowedHost } from "./allowed-host";

const env = (over: Partial<Env>) => ({ HOST: "127.0.0.1", ALLOWED_HOSTS: "", ...over }) as Env;

describe("hostnameOf", () => {
  it("drops the port, a trailing dot and case; unwraps IPv6", () => {
    expect(hostnameOf("Example.COM.:443")).toBe("example.com");
    expect(hostnameOf("[::1]:3000")).toBe("::1");
    expect(hostnameOf("localhost")).toBe("localhost");
  });
  it("rejects what is not a host", () => {
    expect(hostnameOf("")).toBeNull();
    expect(hostnameOf("a b:1")).toBeNull();
    expect(hostnameOf("[evil]:1")).toBeNull();
    expect(hostnameOf("[::1")).toBeNull();
    expect(hostnameOf("host:port")).toBeNull();
  });
});

describe("isAllowedHost", () => {
  it("serves loopback names on a loopback bind, nothing else", () => {
    const e = env({});
    expect(isAllowedHost("localhost:3000", e)).toBe(true);
    expect(isAllowedHost("127.0.0.1:3000", e)).toBe(true);
    expect(isAllowedHost("[::1]:3000", e)).toBe(true);
    expect(isAllowedHost("rebind.example:3000", e)).toBe(false);
    expect(isAllowedHost("10.0.0.5:3000", e)).toBe(false);
    expect(isAllowedHost(null, e)).toBe(false);
  });
  it("adds HOST, PUBLIC_ORIGIN's host and ALLOWED_HOSTS", () => {
    const e = env({ HOST: "kb.lan", PUBLIC_ORIGIN: "https://kb.example.com", ALLOWED_HOSTS: "a.corp, b.corp:8080" });
    for (const h of ["kb.lan:3000", "kb.example.com", "a.corp", "b.corp:1"]) expect(isAllowedHost(h, e)).toBe(true);
    expect(isAllowedHost("c.corp", e)).toBe(false);
  });
  it("on a wildcard bind also serves IP literals, which cannot be rebound, but not other names", () => {
    const e = env({ HOST: "0.0.0.0" });
    expect(isAllowedHost("192.168.1.20:3000", e)).toBe(true);
    expect(isAllowedHost("[fe80::1]:3000", e)).toBe(true);
    expect(isAllowedHost("rebind.example:3000", e)).toBe(false);
    expect(isAllowedHost("1.2.3:3000", e)).toBe(false);
  });
});
