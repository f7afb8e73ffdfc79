import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/env";
import { rawRequest } from "../../support/raw-http";
import { startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

// DNS rebinding (issue 16, item 1): a page on http://rebind.example:PORT whose name re-resolves
// to 127.0.0.1 sends `Host: rebind.example:PORT`. Only the configured names are served.
// One app (one database) for both auth modes: the mode is switched between the blocks.
let app: App;
let port: string;
beforeAll(async () => {
  app = await startIntegrationApp({ PUBLIC_ORIGIN: "https://kb.example.com", ALLOWED_HOSTS: "intranet.corp, 10.0.0.7" });
  port = new URL(app.baseUrl).port;
});
afterAll(() => app.close());

describe.each(["local", "password"] as const)("Host allow-list in %s mode", (mode) => {
  beforeAll(() => {
    process.env.AUTH_MODE = mode;
    resetEnvForTests();
  });

  it.each(["rebind.example", "127.0.0.1.nip.io", "localhost.evil.test", "kb.example.com.evil.test"])(
    "refuses Host %s with 421 and the envelope, before authentication",
    async (name) => {
      const r = await rawRequest(app.baseUrl, { path: "/v1/knowledges", headers: { host: `${name}:${port}` } });
      expect(r.status).toBe(421);
      expect(r.json()).toMatchObject({ code: "HOST_NOT_ALLOWED", data: null });
      expect(r.text).not.toContain("knowledge");
    },
  );

  it("refuses a token mint from a rebinding page (POST with a matching Origin)", async () => {
    const r = await rawRequest(app.baseUrl, {
      method: "POST",
      path: "/v1/api-tokens",
      headers: { host: `rebind.example:${port}`, origin: `http://rebind.example:${port}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "stolen" }),
    });
    expect(r.status).toBe(421);
    expect(r.json().code).toBe("HOST_NOT_ALLOWED");
  });

  it("refuses a forged X-Forwarded-Host", async () => {
    const forged = await rawRequest(app.baseUrl, { path: "/v1/knowledges", headers: { host: `127.0.0.1:${port}`, "x-forwarded-host": "rebind.example" } });
    expect(forged.status).toBe(421);
  });

  it.each(["localhost", "127.0.0.1", "[::1]", "LOCALHOST.", "kb.example.com", "intranet.corp", "10.0.0.7"])(
    "serves the configured host %s",
    async (name) => {
      const r = await rawRequest(app.baseUrl, { path: "/v1/knowledges", headers: { host: `${name}:${port}` } });
      expect(r.status).not.toBe(421);
      expect(r.json().code).toBe(mode === "local" ? 0 : "UNAUTHENTICATED");
    },
  );
});
