import { expect, test } from "../pages/fixtures";

// Every state the assistant and the file panel can be in, rendered from fixtures (issue 7).
// Each is attached as a screenshot to the HTML report (playwright-report/) for review.
const STATES = [
  "welcome-ready",
  "status-empty",
  "status-indexing",
  "status-failed",
  "status-disabled",
  "ready-partial-indexing",
  "status-loading",
  "status-error",
  "no-knowledge-base",
  "retrieving",
  "streaming",
  "answered",
  "answered-extractive",
  "no-relevant-context",
  "model-error",
  "stopped",
  "interrupted",
  "long-answer",
  "untrusted-content",
  "history",
  "composer-limit",
  "external-sources-turn",
  "knowledge-bound-document",
  "knowledge-listing",
  "knowledge-no-listing",
  "knowledge-provider-failed",
  "viewer-pdf",
  "files-all-states",
  "files-empty",
  "files-viewer-role",
  "graph-ready",
  "graph-empty",
  "graph-building",
  "graph-failed",
  "graph-disabled",
  "evaluation-results",
  "evaluation-compare",
  "evaluation-running",
  "evaluation-failed",
];

test.describe("flow gallery", () => {
  test("renders every state without console errors and screenshots each", async ({ gallery, consoleErrors, page }, testInfo) => {
    // One screenshot per state, on a shared two-core machine.
    test.setTimeout(150_000);
    await page.setViewportSize({ width: 1440, height: 900 });
    await gallery.goto();
    await expect(gallery.states).toHaveCount(STATES.length);
    for (const id of STATES) {
      const state = gallery.state(id);
      await state.scrollIntoViewIfNeeded();
      await expect(state).toBeVisible();
      await testInfo.attach(`state-${id}`, { body: await state.screenshot(), contentType: "image/png" });
    }
    expect(consoleErrors).toEqual([]);
  });

  test("an answer cut off by a server stop keeps its text and says why", async ({ gallery }) => {
    await gallery.goto();
    const state = gallery.state("interrupted");
    await expect(state.getByTestId("stopped-indicator")).toContainText("服务中断");
    await expect(gallery.state("stopped").getByTestId("stopped-indicator")).toHaveText("已停止生成");
  });

  test("disabled states show their reason and disable the composer", async ({ gallery }) => {
    await gallery.goto();
    for (const status of ["empty", "indexing", "failed", "disabled"] as const) {
      const panel = gallery.assistant(`status-${status}`);
      await expect(panel.composer).toBeDisabled();
      await expect(panel.sendButton).toBeDisabled();
      await expect(panel.statusNotice).toHaveAttribute("data-status", status);
      await expect(panel.statusNotice).toBeVisible();
      await expect(panel.status).toHaveAttribute("data-status", status);
    }
    const partial = gallery.assistant("ready-partial-indexing");
    await expect(partial.composer).toBeEnabled();
    await expect(partial.statusNotice).toHaveAttribute("data-status", "partial");
  });

  test("counter tracks input and the limit holds at 200", async ({ gallery }) => {
    await gallery.goto();
    const panel = gallery.assistant("welcome-ready");
    await panel.composer.fill("你好");
    await expect(panel.counter).toContainText("2/200");
    await panel.composer.fill("字".repeat(250));
    await expect(panel.counter).toContainText("200/200");
    await expect(panel.composer).toHaveValue("字".repeat(200));
  });

  test("Enter inside an IME composition never sends; Shift+Enter adds a line; Enter sends", async ({ gallery, page }) => {
    await gallery.goto();
    const panel = gallery.assistant("welcome-ready");
    await panel.composer.fill("智慧城市");
    await panel.pressImeEnter("isComposing");
    await panel.pressImeEnter("keyCode229");
    // Real IME path through Chromium: an open composition, then Enter.
    await panel.composer.focus();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Input.imeSetComposition", { text: "zhengce", selectionStart: 7, selectionEnd: 7 });
    await page.keyboard.press("Enter");
    await expect(panel.userMessages).toHaveCount(0);
    await cdp.send("Input.insertText", { text: "政策" });
    await panel.composer.fill("第一行");
    await panel.composer.press("Shift+Enter");
    await expect(panel.userMessages).toHaveCount(0);
    await expect(panel.composer).toHaveValue("第一行\n");
    await panel.composer.press("Enter");
    await expect(panel.userMessages).toHaveCount(1);
  });

  test("external sources: per-source notices in a turn, badges, listing with and without the capability, failing-provider notice", async ({ gallery }) => {
    await gallery.goto();
    const turn = gallery.state("external-sources-turn");
    await expect(turn.getByTestId("source-status")).toHaveCount(3);
    await expect(turn.locator('[data-testid=source-status][data-source=team-wiki]')).toHaveAttribute("data-status", "timeout");
    const extCard = turn.getByTestId("reference-card").nth(1);
    await expect(extCard.getByTestId("provider-badge")).toHaveText("DO");
    await expect(extCard.getByTestId("reference-locator")).toContainText("handbook/-/doc-release#p1");
    const bound = gallery.state("knowledge-bound-document");
    await expect(bound.locator("[data-testid=knowledge-item][data-kind=external]")).toContainText("Release checklist");
    await expect(bound.locator("[data-testid=knowledge-item][data-kind=builtin]")).toBeVisible();
    await expect(gallery.state("knowledge-listing").getByTestId("listing-item")).toHaveCount(3);
    const noListing = gallery.state("knowledge-no-listing");
    await expect(noListing.getByTestId("provider-section")).toHaveCount(2);
    await expect(noListing.getByTestId("browse-button")).toHaveCount(0);
    const failed = gallery.state("knowledge-provider-failed");
    await expect(failed.getByTestId("provider-notice")).toHaveCount(2);
    await expect(failed.getByTestId("unbind-button")).toBeEnabled();
  });

  test("citation [2] jumps to reference card 2; external source falls back to plain text", async ({ gallery, page }) => {
    await gallery.goto();
    const panel = gallery.assistant("answered");
    const answer = panel.lastAnswer();
    await expect(panel.referenceCards(answer)).toHaveCount(3);
    await panel.citation(2, answer).click();
    const card = panel.referenceCard(2, answer);
    await expect(card).toHaveAttribute("data-highlighted", "true");
    await expect(card).toBeInViewport();
    const external = panel.referenceCard(3, answer);
    await expect(external.getByTestId("reference-plain")).toHaveText("Acme Wiki · 城市治理");
    await expect(external.getByRole("link")).toHaveCount(0);
    await expect(panel.referenceCard(1, answer).getByTestId("reference-open")).toBeVisible();
    // Collapsing hides the cards, a marker re-opens them.
    await answer.getByTestId("references-toggle").click();
    await expect(card).toBeHidden();
    await panel.citation(1, answer).click();
    await expect(panel.referenceCard(1, answer)).toBeVisible();
    void page;
  });

  test("untrusted content stays inert: no script, no remote image, no javascript: link", async ({ gallery, page }) => {
    let dialogs = 0;
    page.on("dialog", (d) => {
      dialogs++;
      void d.dismiss();
    });
    const remote: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith("http://127.0.0.1")) remote.push(r.url());
    });
    await gallery.goto();
    const state = gallery.state("untrusted-content");
    await expect(state.getByTestId("message-user")).toContainText('<img src=x onerror="alert(1)">');
    await expect(state.getByTestId("reference-card")).toContainText('<img src=x onerror="alert(1)">.pdf');
    await expect(state.locator("img")).toHaveCount(0);
    await expect(state.locator("script")).toHaveCount(0);
    await expect(state.locator('a[href^="javascript"]')).toHaveCount(0);
    const links = state.getByRole("link", { name: "正常链接" });
    await expect(links).toHaveAttribute("rel", "noopener noreferrer");
    expect(dialogs).toBe(0);
    expect(remote).toEqual([]);

    // A model-written link shows where it goes and asks before opening, query string in view.
    const planted = state.getByRole("link", { name: "查看详情" });
    await expect(planted.locator("xpath=following-sibling::*[1]")).toHaveText("attacker.example");
    const popups: string[] = [];
    page.on("popup", (p) => popups.push(p.url()));
    await planted.click();
    const dialog = page.getByTestId("external-link-dialog");
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId("external-link-dialog-host")).toHaveText("attacker.example");
    await expect(dialog.getByTestId("external-link-dialog-url")).toContainText("leak=");
    await dialog.getByTestId("external-link-cancel").click();
    await expect(dialog).toBeHidden();
    expect(popups).toEqual([]);
  });

  test("the PDF viewer opens at the cited page with the quote highlighted (text fallback, no fetch)", async ({ gallery, page }) => {
    const fetched: string[] = [];
    page.on("request", (r) => {
      if (/\/original$|\/pdfjs\//.test(new URL(r.url()).pathname)) fetched.push(r.url());
    });
    await gallery.goto();
    const state = gallery.state("viewer-pdf");
    await expect(state.locator('[data-testid="viewer-page"][data-target="true"]')).toHaveAttribute("data-page", "8");
    await expect(state.getByTestId("viewer-highlight")).toContainText("2.4 万亿元");
    // The gallery has no originals: pages stay in the extracted-text rendering, nothing is fetched.
    await expect(state.getByTestId("pdf-canvas")).toHaveCount(0);
    await expect(state.getByTestId("pdf-text-layer")).toHaveCount(0);
    await expect.poll(() => fetched).toEqual([]);
  });

  test("opens at the top; fixtures are states the product can be in; a tall state scrolls inside its card", async ({ gallery, page }) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await gallery.goto();
    await expect(gallery.state("viewer-pdf").getByTestId("viewer-highlight")).toBeVisible();
    // The viewer brought its quote into view inside its own region, not by scrolling the page.
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
    await expect(gallery.state("welcome-ready")).toBeInViewport();
    await expect(gallery.state("viewer-pdf").locator('[data-testid="viewer-page"][data-page="8"]')).toContainText("第 8 / 24 页");
    // A status that failed to load is not "checking".
    await expect(gallery.state("status-error").getByTestId("assistant-status")).toHaveAttribute("data-status", "unknown");
    // A viewer cannot upload, so there is no upload row in a viewer's list.
    await expect(gallery.state("files-viewer-role").locator('[data-upload="true"]')).toHaveCount(0);
    await expect(gallery.state("files-all-states").locator('[data-upload="true"]').first()).toBeVisible();
    // Cards scroll rather than clip what does not fit.
    const overflow = await gallery.state("files-all-states").locator(":scope > div").last().evaluate((el) => getComputedStyle(el).overflowY);
    expect(overflow).toBe("auto");
  });

  test("language switch turns the copy into English and persists", async ({ gallery, page }) => {
    await gallery.goto();
    await page.getByTestId("language-switch").click();
    await expect(gallery.assistant("welcome-ready").welcome).toContainText("Hi, I'm your knowledge assistant");
    await page.reload();
    await expect(gallery.assistant("welcome-ready").welcome).toContainText("Hi, I'm your knowledge assistant");
    await page.getByTestId("language-switch").click();
    await expect(gallery.assistant("welcome-ready").welcome).toContainText("你好，我是知识库助手");
  });
});
