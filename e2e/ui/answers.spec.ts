import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expect, test, uniqueName } from "../pages/fixtures";
import { WorkspacePage } from "../pages/workspace-page";

// Answers a reader trusts and conversations that keep their place (issue 20), on the seeded
// sample KB with the built-in extractive engine.
const SAMPLE = "示例知识库";
const INVITE = "How long is an invitation link valid?";
const REFUND = "购买后多少天内可以申请全额退款？";
const OFF_TOPIC = "量子引力的弦论解释";

async function openSample(page: Page, url = "/"): Promise<WorkspacePage> {
  const ws = new WorkspacePage(page);
  await page.goto(url);
  await expect(ws.userMenu).toBeVisible();
  await ws.selectKb(SAMPLE);
  await ws.assistant.waitForStatus("ready", 200_000);
  return ws;
}

async function askAndWait(ws: WorkspacePage, question: string, phase: "done" | "error" = "done"): Promise<void> {
  await ws.assistant.ask(question);
  await expect(ws.assistant.lastAnswer()).toHaveAttribute("data-phase", phase, { timeout: 30_000 });
}

const conversationParam = (page: Page) => new URL(page.url()).searchParams.get("c");

test.describe("answers and conversations", () => {
  test.setTimeout(240_000);

  test("a wrapped sentence is answered whole; cited references first in citation order, the rest collapsed; the extractive note once", async ({ page }) => {
    const ws = await openSample(page);
    const a = ws.assistant;
    await a.newConversation();
    await askAndWait(ws, INVITE);
    const answer = a.lastAnswer();
    const content = answer.getByTestId("answer-content");
    // The source wraps this sentence after "An invitation link is": it must not come out in halves.
    await expect(content).toContainText("An invitation link is valid for 7 days and can be used once.");
    await expect(content).not.toContainText(/extractive|抽取式|摘自/i);
    await expect(answer.getByTestId("extractive-note")).toHaveCount(1);

    // The first marker a reader meets is [1], and the cited cards are numbered as cited.
    await expect(answer.getByTestId("citation-marker").first()).toHaveAttribute("data-index", "1");
    const cited = answer.getByTestId("cited-references").getByTestId("reference-card");
    const markers = await answer.getByTestId("citation-marker").evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute("data-index")))]);
    await expect(cited).toHaveCount(markers.length);
    await expect(cited.first()).toHaveAttribute("data-index", "1");
    // The passages the answer does not cite are listed apart, collapsed until asked for.
    const othersToggle = answer.getByTestId("other-references-toggle");
    await expect(othersToggle).toBeVisible();
    await expect(othersToggle).toHaveAttribute("aria-expanded", "false");
    await expect(answer.getByTestId("other-references")).toBeHidden();
    await othersToggle.click();
    await expect(answer.getByTestId("other-references").getByTestId("reference-card").first()).toBeVisible();
    // A marker still jumps to its card.
    await answer.getByTestId("citation-marker").first().click();
    await expect(a.referenceCard(1, answer)).toHaveAttribute("data-highlighted", "true");
    // Quotes read as the source does: no Markdown markup; a table quote is a table.
    await expect(answer.getByTestId("reference-quote").first()).toBeVisible();
    await expect(answer.getByTestId("reference-quote").filter({ hasText: /\*\*|`/ })).toHaveCount(0);
    await askAndWait(ws, "各产品线第二季度的收入分别是多少？");
    const table = a.lastAnswer();
    if (await table.getByTestId("other-references-toggle").isVisible()) await table.getByTestId("other-references-toggle").click();
    await expect(table.getByTestId("reference-quote-table").first()).toBeVisible();
    await expect(table.getByTestId("reference-quote-table").first()).toContainText("企业版订阅");
  });

  test("a restored conversation shows a no-context turn as it ended live", async ({ page }) => {
    const ws = await openSample(page);
    const a = ws.assistant;
    await a.newConversation();
    await askAndWait(ws, REFUND);
    await askAndWait(ws, OFF_TOPIC, "error");
    await expect(a.lastAnswer().getByTestId("message-error")).toHaveAttribute("data-code", "NO_RELEVANT_CONTEXT");
    await expect.poll(() => conversationParam(page)).not.toBeNull();

    await page.reload();
    await a.waitForStatus("ready");
    await expect(a.assistantMessages).toHaveCount(2);
    const restored = a.lastAnswer();
    await expect(restored).toHaveAttribute("data-phase", "error");
    await expect(restored.getByTestId("message-error")).toHaveAttribute("data-code", "NO_RELEVANT_CONTEXT");
    await expect(restored.getByTestId("message-error")).toContainText(/未在当前知识库中找到相关内容|Nothing relevant/);
    await expect(a.assistantMessages.first().getByTestId("answer-content")).toContainText("30 天内");
  });

  test("each conversation has a URL: reload opens the one being read, back and forward walk them", async ({ page }) => {
    const ws = await openSample(page);
    const a = ws.assistant;
    await a.newConversation();
    await askAndWait(ws, REFUND);
    await expect.poll(() => conversationParam(page)).not.toBeNull();
    const first = conversationParam(page)!;
    expect(new URL(page.url()).searchParams.get("kb")).toBeTruthy();

    await a.newConversation();
    await expect.poll(() => conversationParam(page)).toBeNull();
    await askAndWait(ws, INVITE);
    await expect.poll(() => conversationParam(page)).not.toBeNull();
    const second = conversationParam(page)!;
    expect(second).not.toBe(first);

    // Open the older one from the history: its URL, and a reload keeps it (not the newest).
    await a.historyToggle.click();
    await a.conversationItems.filter({ hasText: REFUND.slice(0, 12) }).first().getByRole("button").first().click();
    await expect(a.userMessages.first()).toContainText(REFUND.slice(0, 12));
    await expect.poll(() => conversationParam(page)).toBe(first);
    await page.reload();
    await a.waitForStatus("ready");
    await expect(a.userMessages).toHaveCount(1);
    await expect(a.userMessages.first()).toContainText(REFUND.slice(0, 12));

    // Back: the conversation read before; forward: this one again.
    await page.goBack();
    await expect.poll(() => conversationParam(page)).toBe(second);
    await expect(a.userMessages.first()).toContainText(INVITE.slice(0, 12));
    await page.goForward();
    await expect.poll(() => conversationParam(page)).toBe(first);
    await expect(a.userMessages.first()).toContainText(REFUND.slice(0, 12));

    // A link to a conversation that does not exist opens a new one and says so in the URL.
    const kb = new URL(page.url()).searchParams.get("kb")!;
    await page.goto(`/?kb=${kb}&c=00000000-0000-0000-0000-000000000000`);
    await a.waitForStatus("ready");
    await expect(a.welcome).toBeVisible();
    await expect.poll(() => conversationParam(page)).toBeNull();
  });

  test("when an answer finishes, the panel shows its start, not the middle of its references", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 620 });
    const ws = await openSample(page);
    const a = ws.assistant;
    await a.newConversation();
    await askAndWait(ws, REFUND);
    await askAndWait(ws, INVITE);
    const answer = a.lastAnswer();
    await expect(answer.getByTestId("answer-content")).toBeInViewport();
    await expect(answer.getByTestId("reference-card").first()).toBeInViewport();
  });

  test("keyboard and phones: a skip link first, / focuses the question box, ArrowUp recalls the last question, the phone's assistant button has a label", async ({ page }) => {
    const ws = await openSample(page);
    const a = ws.assistant;
    await a.newConversation();
    await askAndWait(ws, REFUND);
    await page.reload();
    await a.waitForStatus("ready");
    await expect(a.userMessages).toHaveCount(1);
    await page.keyboard.press("Tab");
    const skip = page.getByTestId("skip-to-composer");
    await expect(skip).toBeFocused();
    await expect(skip).toBeVisible();
    await page.keyboard.press("Enter");
    await expect(a.composer).toBeFocused();
    await ws.kbTitle.click();
    await expect(a.composer).not.toBeFocused();
    await page.keyboard.press("/");
    await expect(a.composer).toBeFocused();
    await expect(a.composer).toHaveValue("");
    await page.keyboard.press("ArrowUp");
    await expect(a.composer).toHaveValue(REFUND);

    await page.setViewportSize({ width: 390, height: 800 });
    await expect(page.getByTestId("assistant-open")).toBeVisible();
    await expect(page.getByTestId("assistant-open")).toHaveText(/知识库助手|助手|Assistant/);
  });

  test("one language at a time: a failed file's reason is the UI's copy, the server's English only a detail; 0 ready is not green", async ({ workspace }) => {
    await workspace.goto();
    await workspace.createKb(uniqueName("语言库"));
    await expect(workspace.page.getByTestId("kb-ready-count")).toHaveAttribute("data-tone", "neutral");
    await workspace.upload([path.join(process.cwd(), "e2e", "fixtures", "truncated.pdf")]);
    const error = workspace.fileRow("truncated.pdf").getByTestId("file-error");
    await expect(error).toBeVisible({ timeout: 90_000 });
    const reason = error.getByTestId("file-error-text");
    await expect(reason).toContainText("失败原因：");
    await expect(reason).not.toContainText(/[A-Za-z]{4,}/);
    await expect(error.getByTestId("file-error-detail")).toContainText("PDF");
    await expect(workspace.page.getByTestId("kb-ready-count")).toHaveAttribute("data-tone", "neutral");
  });
  test("one language at a time in English too; a rejected upload stays listed with its reason until dismissed", async ({ workspace, page }) => {
    await workspace.goto();
    await page.getByTestId("language-switch").click();
    await workspace.createKb(uniqueName("lang-en"));
    await expect(page.getByTestId("kb-ready-count")).toHaveAttribute("data-tone", "neutral");
    // Rejected at upload (a PNG named .pdf: FILE_TYPE_UNSUPPORTED), then a file that fails parsing.
    await workspace.upload([path.join(process.cwd(), "e2e", "fixtures", "png-named.pdf")]);
    const rejected = workspace.fileRows.and(page.locator('[data-upload="true"]')).filter({ hasText: "png-named.pdf" });
    await expect(rejected.getByTestId("file-error-text")).toBeVisible({ timeout: 60_000 });
    await expect(rejected.getByTestId("file-error-text")).not.toContainText(/[\u4e00-\u9fff]/);
    await workspace.upload([path.join(process.cwd(), "e2e", "fixtures", "truncated.pdf")]);
    const failed = workspace.fileRow("truncated.pdf").getByTestId("file-error");
    await expect(failed).toBeVisible({ timeout: 90_000 });
    await expect(failed.getByTestId("file-error-text")).toContainText("Reason:");
    await expect(failed.getByTestId("file-error-text")).not.toContainText(/[\u4e00-\u9fff]/);
    await expect(page.getByTestId("file-progress")).toHaveCount(0);
    // The rejected row is still there after the list refreshed for the other file, in each language.
    await expect(rejected.getByTestId("file-error")).toBeVisible();
    await page.getByTestId("language-switch").click();
    await expect(rejected.getByTestId("file-error-text")).not.toContainText(/[A-Za-z]{4,}/);
    await expect(failed.getByTestId("file-error-text")).toContainText("失败原因：");
    await rejected.getByRole("button", { name: /移除提示/ }).click();
    await expect(rejected).toHaveCount(0);
    await expect(workspace.fileRow("truncated.pdf")).toHaveCount(1);
  });
  test("a 3-page PDF answered on page 2: the card and the viewer name page 2, the highlight covers whole words, no repeated footer", async ({ workspace }, testInfo) => {
    const { PDFDocument, StandardFonts } = await import("pdf-lib");
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    const body = ["The keeper lights the lamp at dusk and checks the lens.", "The Rotholm lighthouse was built in 1872 on the northern cliffs.", "Visitors may climb the tower in summer."];
    body.forEach((text, i) => {
      const p = pdf.addPage([420, 300]);
      p.drawText(text, { x: 30, y: 200, size: 11, font });
      p.drawText(`Lighthouse manual page ${i + 1}/3`, { x: 30, y: 30, size: 9, font });
    });
    const file = testInfo.outputPath("lighthouse.pdf");
    await writeFile(file, await pdf.save());
    await workspace.goto();
    await workspace.createKb(uniqueName("lighthouse"));
    await workspace.upload([file]);
    await expect(workspace.fileStatus("lighthouse.pdf")).toHaveAttribute("data-status", "success", { timeout: 120_000 });
    await workspace.assistant.ask("When was the Rotholm lighthouse built?");
    const answer = workspace.assistant.lastAnswer();
    await expect(answer).toHaveAttribute("data-phase", "done", { timeout: 30_000 });
    const card = workspace.assistant.referenceCards(answer).first();
    await expect(card.getByTestId("reference-page")).toHaveText("第 2 页");
    await expect(card.getByTestId("reference-quote")).toContainText("The Rotholm lighthouse was built in 1872");
    await expect(card.getByTestId("reference-quote")).not.toContainText("Lighthouse manual");
    await card.getByTestId("reference-open").click();
    await expect(workspace.viewerTargetPage).toHaveAttribute("data-page", "2");
    const marks = workspace.viewerTargetPage.getByTestId("viewer-highlight");
    await expect(marks.first()).toBeVisible();
    const highlighted = async () => (await marks.allTextContents()).join("").replace(/\s+/g, " ").trim();
    await expect.poll(highlighted).toMatch(/^The Rotholm lighthouse was built in 1872 on the northern cliffs\.?$/);
  });
});
