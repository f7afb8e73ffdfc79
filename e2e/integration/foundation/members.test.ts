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
    await owner.json("POST", "/v1/auth/sign-up", { email: "own@x.test", password: "password-o" });
    viewerId = (await viewer.json<{ user: { id: string } }>("POST", "/v1/auth/sign-up", { email: "view@x.test", password: "password-v" })).data.user.id;
    kb = (await owner.json<{ id: string }>("POST", "/v1/knowledges", { name: "Shared" })).data.id;
    await seedIndexedFile(kb, "shared.pdf", SAMPLE_CHUNKS);
  });
  afterAll(() => app.close());

  it("a viewer can read and ask but not upload, delete or manage", async () => {
    expect((await owner.json("POST", `/v1/knowledges/${kb}/members`, { email: "nobody@x.test", role: "viewer" })).code).toBe("USER_NOT_FOUND");
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

  it("the owner removes a member, who then sees the KB as missing", async () => {
    expect((await owner.json("DELETE", `/v1/knowledges/${kb}/members/${viewerId}`)).code).toBe(0);
    expect((await viewer.json("GET", `/v1/knowledges/${kb}`)).code).toBe("KNOWLEDGE_NOT_FOUND");
  });
});
