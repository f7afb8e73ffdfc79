import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/env";
import { rawRequest } from "../../support/raw-http";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

// Issue 16, items 6 and 7: inputs that reached the database or a decoder and came back as
// INTERNAL_ERROR (with a stack trace in the log) get their own clear codes.
let app: App;
let c: Client;
let kb: string;
beforeAll(async () => {
  app = await startIntegrationApp({ AUTH_MODE: "local" });
  c = new Client(app.baseUrl);
  kb = (await c.json<{ id: string }>("POST", "/v1/knowledges", { name: "NUL 测试库" })).data.id;
});
afterAll(() => app.close());

describe("NUL characters in text fields (local mode)", () => {
  it.each([
    ["KB name", "POST", "/v1/knowledges", { name: "库\u0000名" }, "name"],
    ["KB description", "POST", "/v1/knowledges", { name: "ok", description: "a\u0000" }, "description"],
    ["token name", "POST", "/v1/api-tokens", { name: "tok\u0000en" }, "name"],
    ["a key", "POST", "/v1/knowledges", { ["na\u0000me"]: "x" }, undefined],
  ])("refuses a NUL in the %s with INVALID_PARAMS naming the field", async (_what, method, path, body, field) => {
    const r = await c.json(method, path, body);
    expect(r.code).toBe("INVALID_PARAMS");
    if (field) expect(r.msg).toContain(`"${field}"`);
    expect(r.msg).toMatch(/NUL/);
  });

  it("refuses a NUL in the question before the stream opens", async () => {
    const r = await c.json("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, { message: "年假\u0000几天" });
    expect(r.code).toBe("INVALID_PARAMS");
    expect(r.msg).toContain('"message"');
  });

  it("refuses a NUL in a KB rename and in a query parameter", async () => {
    expect((await c.json("PATCH", `/v1/knowledges/${kb}`, { name: "x\u0000" })).code).toBe("INVALID_PARAMS");
    expect((await c.json("GET", "/v1/knowledges?page=1%00")).code).toBe("INVALID_PARAMS");
    // The KB is untouched.
    const list = await c.json<{ items: Array<{ id: string; name: string }> }>("GET", "/v1/knowledges");
    expect(list.data.items.find((k) => k.id === kb)?.name).toBe("NUL 测试库");
  });
});

describe("password mode: sign-in and session cookie", () => {
  beforeAll(() => {
    process.env.AUTH_MODE = "password";
    resetEnvForTests();
  });
  afterAll(() => {
    process.env.AUTH_MODE = "local";
    resetEnvForTests();
  });

  it("refuses a NUL in the sign-in and sign-up fields with INVALID_PARAMS", async () => {
    const anon = new Client(app.baseUrl);
    expect((await anon.json("POST", "/v1/auth/sign-in", { email: "a\u0000@example.com", password: "x" })).code).toBe("INVALID_PARAMS");
    expect((await anon.json("POST", "/v1/auth/sign-in", { email: "a@example.com", password: "pass\u0000word" })).code).toBe("INVALID_PARAMS");
    expect((await anon.json("POST", "/v1/auth/sign-up", { email: "b@example.com", password: "long enough", name: "B\u0000" })).code).toBe("INVALID_PARAMS");
  });

  it.each(["%E0%A4%A", "%", "abc%zz", "%C0%80"])("treats a session cookie with a broken %%-escape (%s) as no session", async (raw) => {
    const me = await rawRequest(app.baseUrl, { path: "/v1/auth/me", headers: { cookie: `ka_session=${raw}` } });
    expect(me.status).toBe(401);
    expect(me.json().code).toBe("UNAUTHENTICATED");
    const out = await rawRequest(app.baseUrl, { method: "POST", path: "/v1/auth/sign-out", headers: { cookie: `ka_session=${raw}` } });
    expect(out.json().code).not.toBe("INTERNAL_ERROR");
  });
});
