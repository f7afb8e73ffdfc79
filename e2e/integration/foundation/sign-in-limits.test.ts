import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetAuthLimitsForTests } from "@/lib/auth/rate-limit";
import { resetEnvForTests } from "@/lib/env";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

// Issue 16, item 4. The test server is reached from 127.0.0.1; with TRUSTED_PROXIES=127.0.0.1 it
// stands for a reverse proxy, and X-Forwarded-For names the clients behind it.
let app: App;
const PASSWORD = "correct horse battery";
const signIn = (from: string, email: string, password: string, extra: Record<string, string> = {}) =>
  new Client(app.baseUrl).json("POST", "/v1/auth/sign-in", { email, password }, { "x-forwarded-for": from, ...extra });

beforeAll(async () => {
  app = await startIntegrationApp({ AUTH_MODE: "password", TRUSTED_PROXIES: "127.0.0.1" });
  const up = await new Client(app.baseUrl).signUp({ email: "victim@example.com", password: PASSWORD }, { "x-forwarded-for": "203.0.113.1" });
  expect(up.code).toBe(0);
});
afterAll(() => app.close());
beforeEach(() => resetAuthLimitsForTests());

describe("behind a trusted proxy", () => {
  it("an attacker who exhausts an account's limit is refused, and the owner's correct password still signs in", async () => {
    for (let i = 0; i < 10; i++) expect((await signIn("198.51.100.7", "victim@example.com", `guess-${i}`)).code).toBe("INVALID_CREDENTIALS");
    // That client is now refused for that account, even with the right password…
    expect((await signIn("198.51.100.7", "victim@example.com", "guess-x")).code).toBe("RATE_LIMITED");
    // …a guesser from another address is slowed down but not told anything new…
    expect((await signIn("198.51.100.8", "victim@example.com", "guess-y")).code).toBe("INVALID_CREDENTIALS");
    // …and the owner, from their own address, signs in (after the slowdown).
    const owner = await signIn("203.0.113.1", "victim@example.com", PASSWORD);
    expect(owner.code).toBe(0);
    // The owner's success does not lift the attacker's own refusal.
    expect((await signIn("198.51.100.7", "victim@example.com", PASSWORD)).code).toBe("RATE_LIMITED");
  });

  it("limits each client separately: one client's 30 attempts a minute do not lock out another", async () => {
    for (let i = 0; i < 30; i++) expect((await signIn("192.0.2.9", `nobody${i}@example.com`, "x")).code).toBe("INVALID_CREDENTIALS");
    expect((await signIn("192.0.2.9", "nobody-more@example.com", "x")).code).toBe("RATE_LIMITED");
    // The same client is also refused sign-up; others are not.
    expect((await new Client(app.baseUrl).json("POST", "/v1/auth/sign-up", { email: "n@example.com", password: PASSWORD }, { "x-forwarded-for": "192.0.2.9" })).code).toBe("RATE_LIMITED");
    expect((await signIn("192.0.2.10", "victim@example.com", PASSWORD)).code).toBe(0);
    // X-Forwarded-For is followed from the right: a hop the client wrote itself does not count.
    expect((await signIn("10.9.9.9, 192.0.2.9", "victim@example.com", PASSWORD)).code).toBe("RATE_LIMITED");
  });
});

describe("without trusted proxies", () => {
  beforeAll(() => {
    process.env.TRUSTED_PROXIES = "";
    resetEnvForTests();
  });

  it("ignores X-Forwarded-For and the peer header a client sends: rotating them does not escape the limit", async () => {
    for (let i = 0; i < 30; i++) {
      const r = await signIn(`198.18.0.${i}`, `rotating${i}@example.com`, "x", { "x-ka-peer-address": `198.19.0.${i}` });
      expect(r.code).toBe("INVALID_CREDENTIALS");
    }
    expect((await signIn("198.18.1.1", "rotating-last@example.com", "x", { "x-ka-peer-address": "198.19.1.1" })).code).toBe("RATE_LIMITED");
  });
});
