import type { Locator, Page } from "@playwright/test";

/** The assistant's knowledge entry (built-in KB + external sources), by test id and role only. */
export class KnowledgePanel {
  readonly toggle: Locator;
  readonly root: Locator;
  readonly items: Locator;
  readonly externalItems: Locator;
  readonly notices: Locator;

  constructor(readonly page: Page) {
    this.toggle = page.getByTestId("assistant-panel").getByTestId("knowledge-toggle");
    this.root = page.getByTestId("knowledge-panel");
    this.items = this.root.getByTestId("knowledge-item");
    this.externalItems = this.root.locator('[data-testid="knowledge-item"][data-kind="external"]');
    this.notices = this.root.getByTestId("provider-notice");
  }

  provider(key: string): Locator {
    return this.root.locator(`[data-testid="provider-section"][data-provider="${key}"]`);
  }

  bound(provider: string): Locator {
    return this.root.locator(`[data-testid="knowledge-item"][data-kind="external"][data-provider="${provider}"]`);
  }

  listingItem(provider: string, name: string): Locator {
    return this.provider(provider).getByTestId("listing-item").filter({ hasText: name });
  }
}
