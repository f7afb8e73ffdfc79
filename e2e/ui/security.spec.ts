import { rm } from "node:fs/promises";
import path from "node:path";
import { expect, test, uniqueName } from "../pages/fixtures";
import { WorkspacePage } from "../pages/workspace-page";

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

  test("an original deleted behind the app's back: the download shows a message, not raw JSON, and the file shows as failed (issue 24)", async ({ page, request }) => {
    const dataDir = process.env.KA_E2E_LOCAL_DATA_DIR;
    expect(dataDir, "playwright.config.ts exports the local server's DATA_DIR").toBeTruthy();
    const kb = uniqueName("原件丢失");
    const kbId = ((await (await request.post("/v1/knowledges", { data: { name: kb } })).json()) as { data: { id: string } }).data.id;
    const up = await request.post(`/v1/knowledges/${kbId}/files`, {
      multipart: { files: { name: "gone.md", mimeType: "text/markdown", buffer: Buffer.from("# 原件\n\n这份原件会被删除。") } },
    });
    const fileId = ((await up.json()) as { data: { files: Array<{ file: { id: string } }> } }).data.files[0]!.file.id;
    await expect.poll(async () => ((await (await request.get(`/v1/knowledges/${kbId}/files/${fileId}`)).json()) as { data: { status: string } }).data.status, { timeout: 60_000 }).toBe("success");
    await rm(path.join(dataDir!, "files", kbId, fileId));

    const ws = new WorkspacePage(page);
    await ws.goto();
    await ws.selectKb(kb);
    await ws.fileRow("gone.md").getByRole("button", { name: /^(查看|Open|View) gone\.md$/ }).click();
    await expect(ws.viewer).toBeVisible();
    await page.getByTestId("viewer-download").click();
    await expect(page.getByTestId("viewer-download-error")).toContainText(/存储中找不到该文件的原件|The stored original of this file is missing/);
    await expect(page.getByTestId("viewer-download-error")).toContainText(/重新上传|upload it again/);
    // The server marked the file failed with that reason; the KB list shows it at once.
    await expect(ws.kbItem(kb)).toContainText(/1 失败|1 failed/i);
  });
});
