import { expect, type Locator, type Page } from "@playwright/test";
import { AssistantPanel } from "./assistant-panel";

export class FlowGalleryPage {
  readonly states: Locator;

  constructor(readonly page: Page) {
    this.states = page.getByTestId("flow-state");
  }

  async goto(): Promise<void> {
    await this.page.goto("/flows");
    // Interactions need React's handlers: the states are visible in the server's HTML first.
    await expect(this.page.getByTestId("flow-gallery")).toHaveAttribute("data-hydrated", "true", { timeout: 30_000 });
  }

  state(id: string): Locator {
    return this.page.locator(`[data-testid="flow-state"][data-state="${id}"]`);
  }

  /** The assistant panel inside one gallery state. */
  assistant(id: string): AssistantPanel {
    return new AssistantPanel(this.page, this.state(id));
  }
}
