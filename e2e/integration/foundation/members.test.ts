import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_CHUNKS, seedIndexedFile } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

describe("KB members and roles", () => {
  let app: App;
  let owner: Client;
  let viewer: Client;
  let kb: string;
  let viewerId: string;

  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "password" });
    owner = new Client(app.baseUrl);
    viewer = new Client(app.baseUrl);
    await owner.signUp({ email: "own@x.test", password: "password-o" });
    viewerId = (await viewer.signUp({ email: "view@x.test", password: "password-v" })).data.user.id;
    kb = (await owner.json<{ id: string }>("POST", "/v1/knowledges", { name: "Shared" })).data.id;
    await seedIndexedFile(kb, "shared.pdf", SAMPLE_CHUNKS);
  });
  afterAll(() => app.close());

  it("a viewer can read and ask but not upload, delete or manage", async () => {
    expect((await owner.json("POST", `/v1/knowledges/${kb}/members`, { email: "VIEW@x.test", role: "viewer" })).code).toBe(0);
    const list = await viewer.json<{ items: Array<{ id: string; role: string }> }>("GET", "/v1/knowledges");
    expect(list.data.items.find((k) => k.id === kb)?.role).toBe("viewer");
    expect((await viewer.json("GET", `/v1/knowledges/${kb}/assistant/bootstrap`)).code).toBe(0);
    const chat = await viewer.request("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, { message: "智慧城市政策的实施范围" });
    expect(chat.headers.get("content-type")).toMatch(/event-stream/);
    await chat.text();

    const form = new FormData();
    form.append("files", new Blob(["hello world"], { type: "text/plain" }), "x.txt");
    expect((await viewer.json("POST", `/v1/knowledges/${kb}/files`, form)).code).toBe("FORBIDDEN");
    expect((await viewer.json("PATCH", `/v1/knowledges/${kb}`, { name: "mine" })).code).toBe("FORBIDDEN");
    expect((await viewer.json("DELETE", `/v1/knowledges/${kb}`)).code).toBe("FORBIDDEN");
    expect((await viewer.json("POST", `/v1/knowledges/${kb}/members`, { email: "view@x.test", role: "editor" })).code).toBe("FORBIDDEN");
  });

  it("an assistant-disabled member sees status disabled and cannot ask", async () => {
    await owner.json("POST", `/v1/knowledges/${kb}/members`, { email: "view@x.test", role: "viewer", assistant_enabled: false });
    const boot = await viewer.json<{ assistant_status: string; input_enabled: boolean }>("GET", `/v1/knowledges/${kb}/assistant/bootstrap`);
    expect(boot.data).toMatchObject({ assistant_status: "disabled", input_enabled: false });
    expect((await viewer.json("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, { message: "hi" })).code).toBe("FORBIDDEN");
  });

  it("adding an e-mail answers alike with or without an account; the invitation becomes membership when that person signs up", async () => {
    const add = async (email: string) => {
      const res = await owner.request("POST", `/v1/knowledges/${kb}/members`, { email, role: "editor" });
      const body = (await res.json()) as { code: unknown; data: Record<string, unknown> };
      return { status: res.status, cookies: res.headers.getSetCookie(), code: body.code, data: { ...body.data, email: "*" } };
    };
    const other = new Client(app.baseUrl);
    await other.signUp({ email: "has-account@x.test", password: "password-h" });
    const withAccount = await add("has-account@x.test");
    const without = await add("no-account@x.test");
    expect(withAccount).toEqual(without);
    expect(without).toMatchObject({ code: 0, data: { status: "invited", role: "editor" } });
    // The listing shows both as pending invitations, alike.
    type Listing = { items: Array<{ email: string }>; invitations: Array<{ id: string; email: string; role: string }> };
    const listed = (await owner.json<Listing>("GET", `/v1/knowledges/${kb}/members`)).data;
    expect(listed.invitations.map((i) => i.email).sort()).toEqual(["has-account@x.test", "no-account@x.test"]);
    expect(listed.items.map((m) => m.email)).not.toContain("has-account@x.test");

    // The person without an account signs up later and finds the KB, with the invited role.
    const newcomer = new Client(app.baseUrl);
    expect((await newcomer.json("GET", `/v1/knowledges/${kb}`)).code).toBe("UNAUTHENTICATED");
    await newcomer.signUp({ email: "No-Account@x.test", password: "password-n" });
    const mine = await newcomer.json<{ items: Array<{ id: string; role: string }> }>("GET", "/v1/knowledges");
    expect(mine.data.items.find((k) => k.id === kb)?.role).toBe("editor");
    // The signed-in person with an account sees it at their next listing.
    const theirs = await other.json<{ items: Array<{ id: string; role: string }> }>("GET", "/v1/knowledges");
    expect(theirs.data.items.find((k) => k.id === kb)?.role).toBe("editor");
    const after = (await owner.json<Listing>("GET", `/v1/knowledges/${kb}/members`)).data;
    expect(after.invitations).toEqual([]);
    expect(after.items.map((m) => m.email)).toEqual(expect.arrayContaining(["has-account@x.test", "no-account@x.test"]));

    // A revoked invitation does nothing; revoking a foreign or unknown id is a clear error.
    await add("late@x.test");
    const late = (await owner.json<Listing>("GET", `/v1/knowledges/${kb}/members`)).data.invitations[0]!;
    expect((await viewer.json("DELETE", `/v1/knowledges/${kb}/invitations/${late.id}`)).code).toBe("FORBIDDEN");
    expect((await owner.json("DELETE", `/v1/knowledges/${kb}/invitations/${late.id}`)).code).toBe(0);
    expect((await owner.json("DELETE", `/v1/knowledges/${kb}/invitations/${late.id}`)).code).toBe("INVITATION_NOT_FOUND");
    const lateUser = new Client(app.baseUrl);
    await lateUser.signUp({ email: "late@x.test", password: "password-l" });
    expect((await lateUser.json("GET", `/v1/knowledges/${kb}`)).code).toBe("KNOWLEDGE_NOT_FOUND");
  });

  it("the owner removes a member, who then sees the KB as missing", async () => {
    expect((await owner.json("DELETE", `/v1/knowledges/${kb}/members/${viewerId}`)).code).toBe(0);
    expect((await viewer.json("GET", `/v1/knowledges/${kb}`)).code).toBe("KNOWLEDGE_NOT_FOUND");
  });
});
