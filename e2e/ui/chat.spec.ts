import type { Page } from "@playwright/test";
import { FAKE_MODEL_URL, MODEL_URL, expect, test } from "../pages/fixtures";
import { WorkspacePage } from "../pages/workspace-page";

// Asking questions against the seeded sample KB: the extractive engine on :3100 and the local
// OpenAI-compatible test model on :3102. The sample is indexed in the background after the
// first start, so every test waits for the assistant to report `ready`.
const SAMPLE = "示例知识库";
const PDF_QUESTION = "购买后多少天内可以申请全额退款？";
const DOCX_QUESTION = "2025 年第二季度的收入是多少？";

async function openSample(page: Page, baseURL?: string): Promise<WorkspacePage> {
  const ws = new WorkspacePage(page);
  await page.goto(baseURL ? `${baseURL}/` : "/");
  await expect(ws.userMenu).toBeVisible();
  await ws.selectKb(SAMPLE);
  await ws.assistant.waitForStatus("ready", 200_000);
  await ws.assistant.newConversation();
  return ws;
}

test.describe("asking the assistant (extractive engine)", () => {
  test.setTimeout(240_000);

  test("example question streams a cited answer; [n] jumps to its card", async ({ page }) => {
    const ws = await openSample(page);
    const a = ws.assistant;
    await a.ask(PDF_QUESTION);
    const answer = a.lastAnswer();
    await expect(answer).toHaveAttribute("data-phase", "done", { timeout: 30_000 });
    await expect(answer.getByTestId("answer-content")).not.toBeEmpty();
    await expect(a.referenceCards(answer).first()).toBeVisible();
    await expect(answer.getByRole("button", { name: /引用来源 \d+ 条/ })).toBeVisible();
    const markers = answer.getByTestId("citation-marker");
    const count = await a.referenceCards(answer).count();
    if (count >= 2 && (await a.citation(2, answer).count()) > 0) {
      // An extractive answer may cite the same reference in several sentences.
      await a.citation(2, answer).first().click();
      await expect(a.referenceCard(2, answer)).toHaveAttribute("data-highlighted", "true");
      await expect(a.referenceCard(2, answer)).toBeInViewport();
    } else {
      await markers.first().click();
      const index = await markers.first().getAttribute("data-index");
      await expect(a.referenceCard(Number(index), answer)).toHaveAttribute("data-highlighted", "true");
    }
  });

  test("clicking an example question sends it", async ({ page }) => {
    const ws = await openSample(page);
    await ws.assistant.exampleQuestions.first().click();
    await expect(ws.assistant.userMessages).toHaveCount(1);
    await expect(ws.assistant.lastAnswer()).not.toHaveAttribute("data-phase", /pending|retrieving|streaming/, { timeout: 30_000 });
  });

  test("a PDF reference opens the viewer at its page with the quote highlighted", async ({ page }) => {
    const ws = await openSample(page);
    await ws.assistant.ask(PDF_QUESTION);
    const answer = ws.assistant.lastAnswer();
    await expect(answer).toHaveAttribute("data-phase", "done", { timeout: 30_000 });
    const pdfCard = ws.assistant.referenceCards(answer).filter({ hasText: ".pdf" }).first();
    await pdfCard.getByTestId("reference-open").click();
    await expect(ws.viewer).toBeVisible();
    await expect(ws.viewer.getByTestId("viewer-highlight").first()).toBeVisible();
    await expect(ws.viewer.getByTestId("viewer-highlight").first()).toBeInViewport();
  });

  test("a PDF reference is drawn by pdf.js at its page, quote highlighted in the text layer", async ({ page, consoleErrors, baseURL }) => {
    const origin = new URL(baseURL!).origin;
    const originals: string[] = [];
    const offOrigin: string[] = [];
    page.on("request", (r) => {
      if (/\/files\/[^/]+\/original$/.test(new URL(r.url()).pathname)) originals.push(r.url());
      if (!/^(blob|data):/.test(r.url()) && new URL(r.url()).origin !== origin) offOrigin.push(r.url());
    });
    const ws = await openSample(page);
    await ws.assistant.ask(PDF_QUESTION);
    const answer = ws.assistant.lastAnswer();
    await expect(answer).toHaveAttribute("data-phase", "done", { timeout: 30_000 });
    const pdfCard = ws.assistant.referenceCards(answer).filter({ hasText: ".pdf" }).first();
    const quote = ((await pdfCard.getByRole("blockquote").textContent()) ?? "").replace(/\s+|…/g, "");
    await pdfCard.getByTestId("reference-open").click();

    const target = ws.viewerTargetPage;
    const pdf = ws.pdfParts(target);
    await expect(pdf.view).toHaveAttribute("data-renderer", "pdfjs");
    await expect(pdf.canvas).toBeVisible();
    await expect.poll(async () => (await ws.canvasInk(pdf.canvas)).width).toBeGreaterThan(0);
    await expect.poll(async () => (await ws.canvasInk(pdf.canvas)).height).toBeGreaterThan(0);
    await expect.poll(async () => (await ws.canvasInk(pdf.canvas)).ink).toBeGreaterThan(100);
    await expect(pdf.spans.first()).toBeAttached();
    await expect.poll(() => pdf.spans.count()).toBeGreaterThan(3);
    // The highlight lives in pdf.js's text layer (no text fallback left on the page) and is in view.
    await expect(target.getByTestId("viewer-highlight").first()).toBeVisible();
    await expect(pdf.highlights.first()).toBeInViewport();
    await expect.poll(() => target.getByTestId("viewer-highlight").count()).toBe(await pdf.highlights.count());
    const highlighted = async () => (await pdf.highlights.allTextContents()).join("").replace(/\s+/g, "");
    await expect.poll(highlighted).toMatch(/^.{8,}$/);
    expect(quote).toContain(await highlighted());

    // Other pages are drawn lazily, from the same fetched document.
    const pages = ws.viewer.getByTestId("viewer-page");
    const total = await pages.count();
    const cited = Number(await target.getAttribute("data-page"));
    const far = cited <= total / 2 ? total : 1;
    if (Math.abs(far - cited) >= 2) await expect(ws.pdfParts(ws.viewerPage(far)).canvas).toHaveCount(0);
    await ws.viewerPage(far).scrollIntoViewIfNeeded();
    await expect(ws.pdfParts(ws.viewerPage(far)).view).toHaveAttribute("data-renderer", "pdfjs");
    await expect(ws.pdfParts(ws.viewerPage(far)).canvas).toBeVisible();
    await expect.poll(() => originals.length).toBe(1);
    await expect.poll(() => offOrigin).toEqual([]);
    await expect.poll(() => consoleErrors).toEqual([]);
  });

  test("when pdf.js cannot load the original, the PDF page falls back to its extracted text", async ({ page }) => {
    await page.route(/\/files\/[^/]+\/original$/, (route) => route.fulfill({ status: 500, body: "unavailable" }));
    const ws = await openSample(page);
    await ws.assistant.ask(PDF_QUESTION);
    const answer = ws.assistant.lastAnswer();
    await expect(answer).toHaveAttribute("data-phase", "done", { timeout: 30_000 });
    await ws.assistant.referenceCards(answer).filter({ hasText: ".pdf" }).first().getByTestId("reference-open").click();
    const pdf = ws.pdfParts(ws.viewerTargetPage);
    await expect(pdf.view).toHaveAttribute("data-phase", "failed");
    await expect(pdf.view).toHaveAttribute("data-renderer", "text");
    await expect(pdf.canvas).toHaveCount(0);
    await expect(ws.viewerTargetPage.getByTestId("viewer-highlight").first()).toBeVisible();
  });

  test("nothing relevant → NO_RELEVANT_CONTEXT keeps the question and offers retry", async ({ page }) => {
    const ws = await openSample(page);
    const q = "火星殖民舰队的曲速引擎 zqxjv 参数";
    await ws.assistant.ask(q);
    const error = ws.assistant.lastAnswer().getByTestId("message-error");
    await expect(error).toHaveAttribute("data-code", "NO_RELEVANT_CONTEXT", { timeout: 30_000 });
    await expect(error).toContainText("换个关键词");
    await expect(ws.assistant.userMessages.last()).toHaveText(q);
    await expect(error.getByTestId("retry-button")).toBeEnabled();
  });

  test("switching conversations and starting a new one", async ({ page }) => {
    const ws = await openSample(page);
    const a = ws.assistant;
    await a.ask(PDF_QUESTION);
    await expect(a.lastAnswer()).toHaveAttribute("data-phase", "done", { timeout: 30_000 });
    await page.getByRole("button", { name: "新会话" }).first().click();
    await expect(a.welcome).toBeVisible();
    await a.ask(DOCX_QUESTION);
    await expect(a.lastAnswer()).not.toHaveAttribute("data-phase", /pending|retrieving|streaming/, { timeout: 30_000 });
    await a.historyToggle.click();
    await expect(a.conversationItems.first()).toBeVisible();
    await a.conversationItems.filter({ hasText: PDF_QUESTION.slice(0, 6) }).first().getByRole("button").first().click();
    await expect(a.userMessages.first()).toHaveText(PDF_QUESTION);
    await expect(a.userMessages).toHaveCount(1);
  });

  test("Enter during IME composition does not send on a ready KB", async ({ page }) => {
    const ws = await openSample(page);
    await ws.assistant.composer.fill("协同办公");
    await ws.assistant.pressImeEnter("isComposing");
    await ws.assistant.pressImeEnter("keyCode229");
    await expect(ws.assistant.userMessages).toHaveCount(0);
    await expect(ws.assistant.composer).toHaveValue("协同办公");
  });

  test("reload keeps the same KB selected", async ({ page }) => {
    const ws = await openSample(page);
    const value = await ws.assistant.kbSelect.inputValue();
    await page.reload();
    await expect(ws.assistant.kbSelect).toHaveValue(value);
  });
});

test.describe("asking the assistant (test model server)", () => {
  test.setTimeout(240_000);
  test.afterEach(async ({ request }) => {
    await request.post(`${FAKE_MODEL_URL}/__fake/reset`);
  });

  test("deltas arrive and stop keeps the partial answer", async ({ page, request }) => {
    const tokens = Array.from({ length: 300 }, (_, i) => `第${i}段内容。`);
    await request.post(`${FAKE_MODEL_URL}/__fake/script`, { data: { kind: "stream", tokens, tokenMs: 60 } });
    const ws = await openSample(page, MODEL_URL);
    await ws.assistant.ask(PDF_QUESTION);
    const answer = ws.assistant.lastAnswer();
    await expect(answer.getByTestId("answer-content")).toContainText("第3段", { timeout: 30_000 });
    await expect(answer).toHaveAttribute("data-phase", "streaming");
    await ws.assistant.stopButton.click();
    await expect(answer.getByTestId("stopped-indicator")).toBeVisible();
    const text = await answer.getByTestId("answer-content").innerText();
    await page.waitForTimeout(500);
    await expect(answer.getByTestId("answer-content")).toHaveText(text);
    await expect(ws.assistant.sendButton).toBeVisible();
  });

  test("a failing model shows MODEL_UNAVAILABLE with retry", async ({ page, request }) => {
    await request.post(`${FAKE_MODEL_URL}/__fake/script`, { data: { kind: "fail", status: 500 } });
    await request.post(`${FAKE_MODEL_URL}/__fake/script`, { data: { kind: "fail", status: 500 } });
    const ws = await openSample(page, MODEL_URL);
    await ws.assistant.ask(PDF_QUESTION);
    const error = ws.assistant.lastAnswer().getByTestId("message-error");
    await expect(error).toHaveAttribute("data-code", "MODEL_UNAVAILABLE", { timeout: 30_000 });
    await expect(ws.assistant.userMessages.last()).toHaveText(PDF_QUESTION);
  });
});
