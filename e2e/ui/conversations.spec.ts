import type { Page } from "@playwright/test";
import { expect, test, uniqueName } from "../pages/fixtures";
import { WorkspacePage } from "../pages/workspace-page";

// The conversation experience of issue 20 item 12 in the browser, on the seeded sample KB with
// the built-in extractive engine: copy, feedback (and the owner's list), regenerate, edit and
// resend, history search, rename, paging and clear.
const SAMPLE = "示例知识库";
const REFUND = "购买后多少天内可以申请全额退款？";
const INVITE = "How long is an invitation link valid?";

async function openSample(page: Page, url = "/"): Promise<WorkspacePage> {
  const ws = new WorkspacePage(page);
  await page.goto(url);
  await expect(ws.userMenu).toBeVisible();
  await ws.selectKb(SAMPLE);
  await ws.assistant.waitForStatus("ready", 200_000);
  return ws;
}

async function askAndWait(ws: WorkspacePage, question: string): Promise<void> {
  await ws.assistant.ask(question);
  await expect(ws.assistant.lastAnswer()).toHaveAttribute("data-phase", /^(done|error)$/, { timeout: 30_000 });
}

const kbOf = (page: Page) => new URL(page.url()).searchParams.get("kb");

test.describe("conversation experience", () => {
  test.setTimeout(240_000);

  test("copy with and without references, thumbs down with a comment listed for the owner, regenerate and edit replace later turns", async ({ page, context, baseURL }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
    const ws = await openSample(page);
    const a = ws.assistant;
    await a.newConversation();
    await askAndWait(ws, REFUND);
    const answer = a.lastAnswer();
    await expect(answer).toHaveAttribute("data-phase", "done");
    await expect(a.citation(1)).toBeVisible();

    await a.answerAction("copy-answer").click();
    await expect(a.answerAction("copy-answer")).toHaveText(/已复制|Copied/);
    const plain = await page.evaluate(() => navigator.clipboard.readText());
    expect(plain).toMatch(/退款/);
    expect(plain).not.toMatch(/\[\d+\]/);
    await a.answerAction("copy-answer-refs").click();
    await expect(a.answerAction("copy-answer-refs")).toHaveText(/已复制|Copied/);
    const withRefs = await page.evaluate(() => navigator.clipboard.readText());
    expect(withRefs).toMatch(/\[1\]/);
    expect(withRefs).toMatch(/\n(引用|References)\n\[1\] \S/);
    expect(withRefs.startsWith(plain.slice(0, 10))).toBe(true);

    // Thumbs down with a comment; it is stored with the message (survives a reload).
    const comment = uniqueName("too-long");
    await a.answerAction("feedback-down").click();
    await answer.getByTestId("feedback-comment").fill(comment);
    await answer.getByTestId("feedback-send").click();
    await expect(answer.getByTestId("feedback-saved")).toBeVisible();
    await expect(a.answerAction("feedback-down")).toHaveAttribute("aria-pressed", "true");
    await page.reload();
    await a.waitForStatus("ready");
    await expect(a.answerAction("feedback-down")).toHaveAttribute("aria-pressed", "true");
    await expect(a.answerAction("feedback-up")).toHaveAttribute("aria-pressed", "false");

    // The KB's owner (the local user) sees it in the Feedback tab, with its question.
    await page.getByTestId("tab-feedback").click();
    const item = page.getByTestId("feedback-item").filter({ hasText: comment });
    await expect(item).toBeVisible();
    await expect(item).toHaveAttribute("data-rating", "down");
    await expect(item.getByTestId("feedback-question")).toHaveText(REFUND);

    // Regenerate: a new answer replaces the old one (one exchange, also after a reload).
    const before = await a.lastAnswer().getAttribute("data-message-id");
    await a.answerAction("regenerate-answer").click();
    await expect(a.lastAnswer()).toHaveAttribute("data-phase", "done", { timeout: 30_000 });
    await expect.poll(() => a.lastAnswer().getAttribute("data-message-id")).not.toBe(before);
    await expect(a.userMessages).toHaveCount(1);
    await expect(a.assistantMessages).toHaveCount(1);
    // The rating belonged to the replaced answer.
    await expect(a.answerAction("feedback-down")).toHaveAttribute("aria-pressed", "false");

    // Edit and resend the first question of two turns: the second turn goes too.
    await askAndWait(ws, INVITE);
    await expect(a.userMessages).toHaveCount(2);
    await a.editQuestion(0, INVITE);
    await expect(a.lastAnswer()).toHaveAttribute("data-phase", "done", { timeout: 30_000 });
    await expect(a.userMessages).toHaveCount(1);
    await expect(a.userMessages.first()).toHaveText(INVITE);
    await page.reload();
    await a.waitForStatus("ready");
    await expect(a.userMessages).toHaveCount(1);
    await expect(a.userMessages.first()).toHaveText(INVITE);
    await expect(a.assistantMessages).toHaveCount(1);
  });

  test("history: pages of 20 with more, server-side search in titles and messages, rename, and a clear that says what it deletes", async ({ page }) => {
    const ws = await openSample(page);
    const a = ws.assistant;
    const kb = kbOf(page)!;
    // Enough conversations for a second page (references only: no answer text needed).
    const token = uniqueName("zq");
    for (let i = 0; i < 21; i++) {
      const res = await page.request.post(`/v1/knowledges/${kb}/assistant/chat/stream`, {
        data: { message: `${REFUND} ${token}-${i}`, answer_mode: "references_only" },
      });
      expect(await res.text()).toContain("event: done");
    }
    await page.reload();
    await a.waitForStatus("ready");
    await a.historyToggle.click();
    await expect(a.conversationItems).toHaveCount(20);
    await a.moreConversations.click();
    await expect.poll(() => a.conversationItems.count()).toBeGreaterThan(20);

    // Search reaches every page on the server: the oldest of the 21 is found.
    await a.historySearch.fill(`${token}-0`);
    await expect(a.conversationItems).toHaveCount(1);
    const item = a.conversationItem(`${token}-0`);
    await expect(item).toBeVisible();

    // Rename; then the new title is searchable and the message text still finds it.
    const title = uniqueName("预算会话");
    await item.getByTestId("conversation-rename").click();
    const dialog = page.getByTestId("rename-conversation-dialog");
    await dialog.getByTestId("rename-conversation-input").fill(title);
    await dialog.getByTestId("rename-conversation-save").click();
    await expect(dialog).toBeHidden();
    await expect(a.conversationItems.first().getByTestId("conversation-title")).toHaveText(title);
    await a.historySearch.fill(title);
    await expect(a.conversationItems).toHaveCount(1);
    await a.historySearch.fill(`${token}-0`);
    await expect(a.conversationItem(title)).toHaveCount(1);

    // Clear says exactly what goes and asks first.
    await a.conversationItem(title).getByTestId("conversation-clear").click();
    const confirm = a.root.getByTestId("conversation-history").getByTestId("confirm-dialog");
    await expect(confirm).toContainText(title);
    await expect(confirm).toContainText(/2 条消息|2 messages/);
    await expect(confirm).toContainText(/知识库、文件和其他会话不受影响|knowledge base, its files and other conversations are not affected/);
    await confirm.getByRole("button", { name: /^(取消|Cancel)$/ }).click();
    await expect(a.conversationItems).toHaveCount(1);
    await a.conversationItem(title).getByTestId("conversation-clear").click();
    await confirm.getByRole("button", { name: /^(清空会话|Clear conversation)$/ }).click();
    await expect(page.getByTestId("conversation-no-match")).toBeVisible();
  });

  test("keyboard: from the header one Tab reaches the question box, past an answer's references and actions", async ({ page }) => {
    const ws = await openSample(page);
    const a = ws.assistant;
    await a.newConversation();
    await askAndWait(ws, REFUND);
    await expect(a.referenceCards().first()).toBeVisible();
    await a.kbSelect.focus();
    await page.keyboard.press("Tab");
    await expect(a.composer).toBeFocused();
    // The message list still follows, as one scroll region after the composer's buttons.
    await page.keyboard.press("Shift+Tab");
    await expect(a.kbSelect).toBeFocused();
  });

  test("phone: a PDF reference opens the viewer with the quoted passage as readable text", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 800 });
    const ws = new WorkspacePage(page);
    await page.goto("/");
    await expect(ws.userMenu).toBeVisible();
    await page.getByTestId("assistant-open").click();
    const a = ws.assistant;
    await a.selectKb(SAMPLE);
    await a.waitForStatus("ready", 200_000);
    await a.newConversation();
    await askAndWait(ws, REFUND);
    const card = a.referenceCards().filter({ hasText: ".pdf" }).first();
    const quote = (await card.getByTestId("reference-quote").first().textContent())?.trim() ?? "";
    await card.getByTestId("reference-open").click();
    await expect(ws.viewer).toBeVisible();
    const passage = ws.viewer.getByTestId("viewer-passage");
    await expect(passage).toBeInViewport();
    await expect(passage).toContainText(quote.slice(0, 12));
    const size = await passage.locator("blockquote").evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
    expect(size).toBeGreaterThanOrEqual(16);
  });
});
