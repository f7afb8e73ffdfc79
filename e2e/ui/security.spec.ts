import { expect, test, uniqueName } from "../pages/fixtures";

// Issue 16 on the production build (`next start`), where Next bundles modules into separate
// chunks and applies next.config headers — neither happens in the integration server.
test.describe("production server security fixes", () => {
  let kbA: string;
  let kbB: string;
  let fileB: string;

  test.beforeAll(async ({ request }) => {
    const create = async (name: string) => ((await (await request.post("/v1/knowledges", { data: { name } })).json()) as { data: { id: string } }).data.id;
    kbA = await create(uniqueName("安全A"));
    kbB = await create(uniqueName("安全B"));
    const up = await request.post(`/v1/knowledges/${kbB}/files`, {
      multipart: { files: { name: "note.html", mimeType: "text/html", buffer: Buffer.from("<html><body><script>alert(1)</script><p>年假十五天</p></body></html>") } },
    });
    const body = (await up.json()) as { code: string | 0; data: { files: Array<{ file: { id: string } }> } };
    expect(body.code).toBe(0);
    fileB = body.data.files[0]!.file.id;
  });

  test("a retrieval filter naming another KB's file is FILE_NOT_IN_KNOWLEDGE, not INTERNAL_ERROR (item 8)", async ({ request }) => {
    const minted = (await (await request.post("/v1/api-tokens", { data: { name: uniqueName("provider") } })).json()) as { data: { token: string } };
    const res = await request.post("/v1/provider/retrieve", {
      headers: { authorization: `Bearer ${minted.data.token}` },
      data: { query: "年假", knowledgeBaseIds: [kbA], filters: { fileIds: [fileB] } },
    });
    expect(await res.json()).toMatchObject({ code: "FILE_NOT_IN_KNOWLEDGE", data: null });
  });

  test("an original download keeps the route's sandbox CSP, not the app's (item 9)", async ({ request }) => {
    const res = await request.get(`/v1/knowledges/${kbB}/files/${fileB}/original`);
    expect(res.status()).toBe(200);
    const csp = res.headers()["content-security-policy"] ?? "";
    expect(csp).toMatch(/\bsandbox\b/);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
    expect(res.headers()["content-disposition"]).toMatch(/^attachment/);
    // Pages keep the app's policy.
    const page = await request.get("/");
    expect(page.headers()["content-security-policy"]).toContain("script-src 'self'");
  });
});
