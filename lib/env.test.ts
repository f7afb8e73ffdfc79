import { describe, expect, it } from "vitest";
import { assertSafeToServe, type Env } from "./env";

const env = (over: Partial<Env>) => ({ HOST: "127.0.0.1", AUTH_MODE: "local", ALLOWED_HOSTS: "", TRUSTED_PROXIES: "", ...over }) as Env;

describe("assertSafeToServe: host and proxy lists", () => {
  it("accepts addresses, ranges and host names", () => {
    expect(() => assertSafeToServe(env({ TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8, ::1, fd00::/8", ALLOWED_HOSTS: "kb.example.com, kb-01.lan:8080, [::1]" }))).not.toThrow();
  });
  it.each(["proxy.lan", "10.0.0.0/99", "1.2.3.4/"])("refuses TRUSTED_PROXIES entry %s with a message", (item) => {
    expect(() => assertSafeToServe(env({ TRUSTED_PROXIES: item }))).toThrow(/TRUSTED_PROXIES/);
  });
  it.each(["http://kb.example.com", "kb example", "*.example.com"])("refuses ALLOWED_HOSTS entry %s with a message", (item) => {
    expect(() => assertSafeToServe(env({ ALLOWED_HOSTS: item }))).toThrow(/ALLOWED_HOSTS/);
  });
});
