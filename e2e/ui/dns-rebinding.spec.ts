import { chromium } from "@playwright/test";
import { expect, test } from "../pages/fixtures";
import { WorkspacePage } from "../pages/workspace-page";
import { PORTS } from "../support/ports";

// DNS rebinding (issue 16, item 1) in a real browser: Chromium resolves rebind.test to 127.0.0.1,
// as an attacker's name does after it re-resolves. The page, its scripts and the API must give
// that origin nothing, while the same server keeps serving its own names.
test.describe("DNS rebinding", () => {
  test("a page on a rebound name gets 421 for the page and for the API; localhost still works", async ({}, testInfo) => {
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-quic", "--host-resolver-rules=MAP rebind.test 127.0.0.1"],
    });
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      const rebound = `http://rebind.test:${PORTS.local}`;
      const res = await page.goto(`${rebound}/`);
      expect(res?.status()).toBe(421);
      await expect(page.locator("body")).toContainText("HOST_NOT_ALLOWED");
      // What the attacker's script would run once the name points at the server.
      const api = await page.evaluate(async () => {
        const list = await fetch("/v1/knowledges");
        const mint = await fetch("/v1/api-tokens", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "stolen" }) });
        return { list: list.status, listBody: await list.text(), mint: mint.status, mintBody: await mint.text() };
      });
      expect(api.list).toBe(421);
      expect(JSON.parse(api.listBody)).toMatchObject({ code: "HOST_NOT_ALLOWED", data: null });
      expect(api.mint).toBe(421);
      expect(JSON.parse(api.mintBody).code).toBe("HOST_NOT_ALLOWED");

      // The server's own name in the same browser is served as before.
      const own = await page.goto(`http://localhost:${PORTS.local}/`);
      expect(own?.status()).toBe(200);
      await expect(new WorkspacePage(page).kbList).toBeVisible();
      testInfo.annotations.push({ type: "rebound origin", description: rebound });
    } finally {
      await browser.close();
    }
  });
});
