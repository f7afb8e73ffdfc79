import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

describe("password mode", () => {
  let app: App;
  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "password" });
  });
  afterAll(() => app.close());

  it("requires a session: 401 with the envelope", async () => {
    const anon = new Client(app.baseUrl);
    const r = await anon.json("GET", "/v1/knowledges");
    expect(r.status).toBe(401);
    expect(r.code).toBe("UNAUTHENTICATED");
  });

  it("signs up, rotates the session at sign-in and invalidates it at sign-out", async () => {
    const c = new Client(app.baseUrl);
    const up = await c.signUp({ email: "Alice@Example.com", password: "correct horse", name: "Alice" });
    expect(up.code).toBe(0);
    expect(up.data.user).toMatchObject({ email: "alice@example.com", name: "Alice" });
    const first = c.cookie("ka_session");
    expect(first).toBeTruthy();

    const raw = await c.request("POST", "/v1/auth/sign-in", { email: "alice@example.com", password: "correct horse" });
    const setCookie = raw.headers.getSetCookie()[0]!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    const second = c.cookie("ka_session");
    expect(second).not.toBe(first);

    // The pre-rotation token no longer works.
    const stale = new Client(app.baseUrl);
    const staleRes = await stale.json("GET", "/v1/auth/me", undefined, { cookie: `ka_session=${first}` });
    expect(staleRes.code).toBe("UNAUTHENTICATED");

    expect((await c.json("GET", "/v1/auth/me")).code).toBe(0);
    await c.json("POST", "/v1/auth/sign-out");
    const replay = await new Client(app.baseUrl).json("GET", "/v1/auth/me", undefined, { cookie: `ka_session=${second}` });
    expect(replay.code).toBe("UNAUTHENTICATED");
  });

  it("rejects a wrong password and a malformed e-mail", async () => {
    const c = new Client(app.baseUrl);
    await c.signUp({ email: "bob@example.com", password: "password-b", name: "Bob" });
    expect((await c.json("POST", "/v1/auth/sign-in", { email: "bob@example.com", password: "nope" })).code).toBe("INVALID_CREDENTIALS");
    expect((await c.json("POST", "/v1/auth/sign-in", { email: "nobody@example.com", password: "nope" })).code).toBe("INVALID_CREDENTIALS");
    expect((await c.json("POST", "/v1/auth/sign-up", { email: "not-an-email", password: "password-b" })).code).toBe("INVALID_PARAMS");
  });

  it("sign-up answers a taken e-mail exactly like a new one, signs nobody in and changes nothing", async () => {
    const owner = new Client(app.baseUrl);
    await owner.signUp({ email: "carol@example.com", password: "carol-password", name: "Carol" });
    const answer = async (email: string) => {
      const res = await new Client(app.baseUrl).request("POST", "/v1/auth/sign-up", { email, password: "attacker-pass", name: "Mallory" });
      return { status: res.status, cookies: res.headers.getSetCookie(), body: await res.json() };
    };
    const taken = await answer("Carol@Example.com");
    const fresh = await answer("dave@example.com");
    expect(taken.status).toBe(202);
    // Same status, same body (the e-mail aside, which is the caller's own input), no cookie.
    expect({ ...taken, body: { ...taken.body, data: { ...taken.body.data, email: "*" } } }).toEqual({
      ...fresh,
      body: { ...fresh.body, data: { ...fresh.body.data, email: "*" } },
    });
    expect(taken.cookies).toEqual([]);
    expect(taken.body).toEqual({ code: 0, msg: "success", data: { email: "carol@example.com", next: "sign_in" } });
    // The existing account is untouched: its password still works, the attacker's does not…
    expect((await new Client(app.baseUrl).json("POST", "/v1/auth/sign-in", { email: "carol@example.com", password: "attacker-pass" })).code).toBe("INVALID_CREDENTIALS");
    const carol = await new Client(app.baseUrl).json<{ user: { name: string } }>("POST", "/v1/auth/sign-in", { email: "carol@example.com", password: "carol-password" });
    expect(carol.data.user.name).toBe("Carol");
    // …and the new e-mail got its account.
    expect((await new Client(app.baseUrl).json("POST", "/v1/auth/sign-in", { email: "dave@example.com", password: "attacker-pass" })).code).toBe(0);
  });

  it("keeps two users' KBs apart on every KB route", async () => {
    const a = new Client(app.baseUrl);
    const b = new Client(app.baseUrl);
    await a.signUp({ email: "a@iso.test", password: "password-a" });
    await b.signUp({ email: "b@iso.test", password: "password-b" });
    const kb = await a.json<{ id: string }>("POST", "/v1/knowledges", { name: "A's secrets" });
    const id = kb.data.id;

    const listB = await b.json<{ items: { id: string }[] }>("GET", "/v1/knowledges");
    expect(listB.data.items.map((k) => k.id)).not.toContain(id);
    const treeB = await b.json<{ items: { id: string }[] }>("GET", "/v1/knowledges/tree");
    expect(treeB.data.items.map((k) => k.id)).not.toContain(id);

    const missing = "00000000-0000-0000-0000-000000000000";
    for (const target of [id, missing]) {
      expect((await b.json("GET", `/v1/knowledges/${target}`)).code).toBe("KNOWLEDGE_NOT_FOUND");
      expect((await b.json("PATCH", `/v1/knowledges/${target}`, { name: "pwned" })).code).toBe("KNOWLEDGE_NOT_FOUND");
      expect((await b.json("DELETE", `/v1/knowledges/${target}`)).code).toBe("KNOWLEDGE_NOT_FOUND");
    }
    const still = await a.json<{ name: string }>("GET", `/v1/knowledges/${id}`);
    expect(still.data.name).toBe("A's secrets");
  });
});
