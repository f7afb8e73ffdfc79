import { expect, type Locator, type Page } from "@playwright/test";

/** The sidebar assistant, located by test id and role only. */
export class AssistantPanel {
  readonly root: Locator;
  readonly composer: Locator;
  readonly sendButton: Locator;
  readonly stopButton: Locator;
  readonly kbSelect: Locator;
  readonly status: Locator;
  readonly statusNotice: Locator;
  readonly counter: Locator;
  readonly userMessages: Locator;
  readonly assistantMessages: Locator;
  readonly exampleQuestions: Locator;
  readonly welcome: Locator;
  readonly historyToggle: Locator;
  readonly conversationItems: Locator;

  /** `scope` narrows the panel to a region, e.g. one state of the flow gallery. */
  constructor(
    readonly page: Page,
    scope?: Locator,
  ) {
    this.root = scope ? scope.getByTestId("assistant-panel") : page.getByTestId("assistant-panel");
    this.composer = this.root.getByTestId("composer");
    this.sendButton = this.root.getByTestId("send-button");
    this.stopButton = this.root.getByTestId("stop-button");
    this.kbSelect = this.root.getByTestId("kb-select");
    this.status = this.root.getByTestId("assistant-status");
    this.statusNotice = this.root.getByTestId("status-notice");
    this.counter = this.root.getByTestId("char-counter");
    this.userMessages = this.root.getByTestId("message-user");
    this.assistantMessages = this.root.getByTestId("message-assistant");
    this.exampleQuestions = this.root.getByTestId("example-question");
    this.welcome = this.root.getByTestId("assistant-welcome");
    this.historyToggle = this.root.getByTestId("history-toggle");
    this.conversationItems = this.root.getByTestId("conversation-item");
  }

  /** Agent answer mode switch (shown only when bootstrap offers the mode). */
  get agentToggle(): Locator {
    return this.root.getByTestId("agent-mode-toggle");
  }

  agentSteps(answer: Locator = this.lastAnswer()): Locator {
    return answer.getByTestId("agent-step");
  }

  lastAnswer(): Locator {
    return this.assistantMessages.last();
  }

  referenceCards(answer: Locator = this.lastAnswer()): Locator {
    return answer.getByTestId("reference-card");
  }

  /** The cards of the references the answer cites (uncited ones sit collapsed below them). */
  citedReferenceCards(answer: Locator = this.lastAnswer()): Locator {
    return answer.getByTestId("cited-references").getByTestId("reference-card");
  }

  referenceCard(index: number, answer: Locator = this.lastAnswer()): Locator {
    return answer.locator(`[data-testid="reference-card"][data-index="${index}"]`);
  }

  citation(index: number, answer: Locator = this.lastAnswer()): Locator {
    return answer.locator(`[data-testid="citation-marker"][data-index="${index}"]`);
  }

  /** Waits (polling, the seeded sample may still be indexing) until the KB is askable. */
  async waitForStatus(status: "ready" | "empty" | "indexing" | "failed" | "disabled", timeout = 180_000): Promise<void> {
    await expect(this.status).toHaveAttribute("data-status", status, { timeout });
  }

  async selectKb(name: string | RegExp): Promise<void> {
    const option = this.kbSelect.locator("option").filter({ hasText: name }).first();
    const value = await option.getAttribute("value");
    await this.kbSelect.selectOption(value!);
  }

  /** Starts a fresh conversation (the last one is restored on load) and waits for the welcome. */
  async newConversation(): Promise<void> {
    await this.root.getByRole("button", { name: /^(新会话|New conversation)$/ }).first().click();
    await expect(this.welcome).toBeVisible();
  }

  async ask(question: string): Promise<void> {
    await this.composer.fill(question);
    await this.composer.press("Enter");
    await expect(this.userMessages.last()).toContainText(question.slice(0, 20));
  }

  /** The row of actions under a finished answer (copy, regenerate, feedback). */
  answerAction(name: "copy-answer" | "copy-answer-refs" | "regenerate-answer" | "feedback-up" | "feedback-down", answer: Locator = this.lastAnswer()): Locator {
    return answer.getByTestId(name);
  }

  get historySearch(): Locator {
    return this.root.getByTestId("conversation-search");
  }

  get moreConversations(): Locator {
    return this.root.getByTestId("conversation-more");
  }

  conversationItem(text: string | RegExp): Locator {
    return this.conversationItems.filter({ hasText: text });
  }

  /** Edits the question at `index` (0-based) and sends it again. */
  async editQuestion(index: number, question: string): Promise<void> {
    await this.userMessages.nth(index).locator("..").getByTestId("edit-question").click();
    const input = this.root.getByTestId("edit-question-input");
    await input.fill(question);
    await this.root.getByTestId("edit-question-send").click();
  }

  /** Dispatches an Enter keydown flagged as part of an IME composition. */
  async pressImeEnter(variant: "isComposing" | "keyCode229"): Promise<void> {
    await this.composer.evaluate((el, v) => {
      const init: KeyboardEventInit & { keyCode?: number } = { key: "Enter", code: "Enter", bubbles: true, cancelable: true };
      if (v === "isComposing") init.isComposing = true;
      else init.keyCode = 229;
      el.dispatchEvent(new KeyboardEvent("keydown", init));
    }, variant);
  }
}
