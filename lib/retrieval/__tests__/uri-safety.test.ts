import { describe, expect, it } from "vitest";
import { checkPublicHttpUri, isPublicAddress, resolvePublicAddresses } from "../uri-safety";

const REFUSED = [
  "http://127.0.0.1:6666\\@example.com",
  "http://[::ffff:127.0.0.1]/",
  "http://2130706433/",
  "http://0x7f.1/",
  "http://0177.0.0.1/",
  "http://127.1/",
  "http://localhost./",
  "http://localhost/",
  "http://LOCALHOST:3000/x",
  "http://app.localhost/",
  "http://user:pw@example.com/",
  "http://user@example.com/",
  "http://example.com%2f@127.0.0.1/",
  "javascript:alert(1)",
  "JavaScript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "file:///etc/passwd",
  "ftp://example.com/file",
  "//example.com/protocol-relative",
  "/relative/path",
  "http://169.254.169.254/latest/meta-data/",
  "http://metadata.google.internal/",
  "http://10.0.0.1/",
  "http://172.16.5.4/",
  "http://192.168.1.1/",
  "http://100.64.0.1/",
  "http://0.0.0.0/",
  "http://0/",
  "http://[::1]/",
  "http://[::]/",
  "http://[fd00::1]/",
  "http://[fe80::1]/",
  "http://[64:ff9b::7f00:1]/",
  "http://[2002:7f00:1::]/",
  "http://224.0.0.1/",
  "http://255.255.255.255/",
  "http://intranet/",
  "http://printer.local/",
  "http://exa mple.com/",
  "http://example.com/\u0000",
  "https://",
  "not a url",
  "",
];

const KEPT = ["https://example.com/ok", "http://docs.example.com/a/b?c=d#e", "https://8.8.8.8/", "https://[2606:4700:4700::1111]/", "HTTPS://EXAMPLE.COM/Path"];

describe("URI safety", () => {
  it.each(REFUSED)("refuses %j", (uri) => {
    expect(checkPublicHttpUri(uri).ok).toBe(false);
  });

  it.each(KEPT)("keeps %j", (uri) => {
    expect(checkPublicHttpUri(uri).ok).toBe(true);
  });

  it("refuses non-strings", () => {
    for (const v of [null, undefined, 42, {}, ["https://example.com"]]) expect(checkPublicHttpUri(v).ok).toBe(false);
  });

  it("allowLoopback opens loopback only, never other private ranges", () => {
    expect(checkPublicHttpUri("http://127.0.0.1:4000/x", { allowLoopback: true }).ok).toBe(true);
    expect(checkPublicHttpUri("http://localhost:4000/x", { allowLoopback: true }).ok).toBe(true);
    expect(checkPublicHttpUri("http://10.0.0.1/", { allowLoopback: true }).ok).toBe(false);
    expect(checkPublicHttpUri("http://169.254.169.254/", { allowLoopback: true }).ok).toBe(false);
  });

  it("classifies addresses", () => {
    expect(isPublicAddress("8.8.8.8")).toBe(true);
    expect(isPublicAddress("2606:4700:4700::1111")).toBe(true);
    for (const a of ["127.0.0.1", "10.1.2.3", "169.254.1.1", "::1", "::ffff:10.0.0.1", "fc00::1", "fe80::1%eth0", "not-an-ip"]) {
      expect(isPublicAddress(a)).toBe(false);
    }
  });

  it("checks every resolved address (one private record is enough to refuse)", async () => {
    const lookup = async (h: string) =>
      h === "mixed.example"
        ? [
            { address: "93.184.216.34", family: 4 },
            { address: "10.0.0.5", family: 4 },
          ]
        : [{ address: "93.184.216.34", family: 4 }];
    await expect(resolvePublicAddresses("mixed.example", { lookup })).rejects.toThrow(/10\.0\.0\.5/);
    await expect(resolvePublicAddresses("public.example", { lookup })).resolves.toHaveLength(1);
    await expect(resolvePublicAddresses("127.0.0.1")).rejects.toThrow();
    await expect(resolvePublicAddresses("127.0.0.1", { allowLoopback: true })).resolves.toHaveLength(1);
  });
});
