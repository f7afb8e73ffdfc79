import type { Locator, Page } from "@playwright/test";
import { AssistantPanel } from "./assistant-panel";

export class FlowGalleryPage {
  readonly states: Locator;

  constructor(readonly page: Page) {
    this.states = page.getByTestId("flow-state");
  }

  async goto(): Promise<void> {
    await this.page.goto("/flows");
  }

  state(id: string): Locator {
    return this.page.locator(`[data-testid="flow-state"][data-state="${id}"]`);
  }

  /** The assistant panel inside one gallery state. */
  assistant(id: string): AssistantPanel {
    return new AssistantPanel(this.page, this.state(id));
  }
}
