import { expect, type Locator, type Page } from "@playwright/test";

/** The Graph tab of the KB workspace (components/graph). */
export class GraphTab {
  readonly tab: Locator;
  readonly panel: Locator;
  readonly search: Locator;
  readonly results: Locator;
  readonly relations: Locator;
  readonly canvas: Locator;
  readonly detail: Locator;
  readonly passages: Locator;

  constructor(readonly page: Page) {
    this.tab = page.getByTestId("tab-graph");
    this.panel = page.getByTestId("graph-panel");
    this.search = page.getByTestId("graph-search");
    this.results = page.getByTestId("graph-result");
    this.relations = page.getByTestId("graph-relation");
    this.canvas = page.getByTestId("graph-canvas");
    this.detail = page.getByTestId("graph-detail");
    this.passages = this.detail.getByTestId("graph-passage-open");
  }

  async open(): Promise<void> {
    await this.tab.click();
    await expect(this.panel).toBeVisible();
  }

  /** Waits until every file's graph is built (the sample is graphed right after indexing). */
  async waitReady(timeout = 120_000): Promise<void> {
    await expect(this.panel).toHaveAttribute("data-status", "ready", { timeout });
  }

  result(name: string): Locator {
    return this.results.filter({ has: this.page.locator("span", { hasText: new RegExp(`^${name}$`) }) });
  }

  relation(text: string | RegExp): Locator {
    return this.relations.filter({ hasText: text });
  }
}
