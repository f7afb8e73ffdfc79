import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

describe("knowledge bases in local mode", () => {
  let app: App;
  let c: Client;
  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "local" });
    c = new Client(app.baseUrl);
  });
  afterAll(() => app.close());

  it("lands signed in as the local owner", async () => {
    const me = await c.json<{ user: { id: string }; auth_mode: string }>("GET", "/v1/auth/me");
    expect(me.code).toBe(0);
    expect(me.data.auth_mode).toBe("local");
    expect(me.data.user.id).toBe("local-owner");
  });

  it("creates, lists with aggregate counts, renames and deletes a KB", async () => {
    const created = await c.json<{ id: string; name: string; file_count: number }>("POST", "/v1/knowledges", {
      name: "  产品手册  ",
      description: "d",
    });
    expect(created).toMatchObject({ code: 0, msg: "success" });
    expect(created.data.name).toBe("产品手册");
    expect(created.data.file_count).toBe(0);

    const list = await c.json<{ items: Array<Record<string, unknown>>; total: number }>("GET", "/v1/knowledges?page=1&page_size=1000");
    expect(list.code).toBe(0);
    const item = list.data.items.find((k) => k.id === created.data.id)!;
    for (const key of ["file_count", "ready_file_count", "indexing_file_count", "failed_file_count", "total_file_size", "created_at", "updated_at"]) {
      expect(item).toHaveProperty(key);
    }

    const renamed = await c.json<{ name: string }>("PATCH", `/v1/knowledges/${created.data.id}`, { name: "新名字" });
    expect(renamed.data.name).toBe("新名字");

    const tree = await c.json<{ items: Array<{ id: string; files: unknown[] }> }>("GET", "/v1/knowledges/tree");
    expect(tree.data.items.map((k) => k.id)).toContain(created.data.id);

    const del = await c.json("DELETE", `/v1/knowledges/${created.data.id}`);
    expect(del.code).toBe(0);
    const after = await c.json("GET", `/v1/knowledges/${created.data.id}`);
    expect(after.code).toBe("KNOWLEDGE_NOT_FOUND");
  });

  it("answers INVALID_PARAMS naming the field for bad input", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ name: "" }, /name/],
      [{ name: "   " }, /name/],
      [{ name: "x".repeat(101) }, /name/],
      [{ name: 42 }, /name/],
      [{ name: "ok", extra: true }, /extra/],
      [{}, /name/],
    ];
    for (const [body, re] of cases) {
      const r = await c.json("POST", "/v1/knowledges", body);
      expect(r.code, JSON.stringify(body)).toBe("INVALID_PARAMS");
      expect(r.msg).toMatch(re);
    }
    const malformed = await c.json("POST", "/v1/knowledges", "{not json");
    expect(malformed.code).toBe("INVALID_PARAMS");
    expect(malformed.msg).toMatch(/JSON/);
    const badPage = await c.json("GET", "/v1/knowledges?page_size=1001");
    expect(badPage.code).toBe("INVALID_PARAMS");
    expect(badPage.msg).toMatch(/page_size/);
    const unknownQuery = await c.json("GET", "/v1/knowledges?foo=1");
    expect(unknownQuery.code).toBe("INVALID_PARAMS");
  });

  it("rejects huge bodies with 413 and the envelope", async () => {
    const r = await c.json("POST", "/v1/knowledges", { name: "a", description: "x".repeat(200_000) });
    expect(r.status).toBe(413);
    expect(r.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("refuses cross-site state changes and non-JSON bodies", async () => {
    const cross = await c.json("POST", "/v1/knowledges", { name: "x" }, { origin: "https://evil.example", "sec-fetch-site": "cross-site" });
    expect(cross.code).toBe("FORBIDDEN");
    const form = await c.json("POST", "/v1/knowledges", "name=x", { "content-type": "text/plain" });
    expect(form.code).toBe("INVALID_PARAMS");
    const sameOrigin = await c.json("POST", "/v1/knowledges", { name: "ok" }, { origin: app.baseUrl, "sec-fetch-site": "same-origin" });
    expect(sameOrigin.code).toBe(0);
  });

  it("paginates", async () => {
    for (let i = 0; i < 3; i++) await c.json("POST", "/v1/knowledges", { name: `kb ${i}` });
    const p1 = await c.json<{ items: { id: string }[]; total: number }>("GET", "/v1/knowledges?page=1&page_size=2");
    const p2 = await c.json<{ items: { id: string }[]; total: number }>("GET", "/v1/knowledges?page=2&page_size=2");
    expect(p1.data.items).toHaveLength(2);
    expect(p1.data.total).toBeGreaterThanOrEqual(3);
    expect(p2.data.items[0]?.id).not.toBe(p1.data.items[0]?.id);
  });
});
