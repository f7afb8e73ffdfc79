import type { Locator, Page } from "@playwright/test";

/** The API tokens dialog opened from the user menu (issue 17). */
export class ApiTokensDialog {
  readonly root: Locator;
  readonly name: Locator;
  readonly scope: Locator;
  readonly create: Locator;
  readonly secret: Locator;
  readonly rows: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId("api-tokens-dialog");
    this.name = this.root.getByTestId("api-token-name");
    this.scope = this.root.getByTestId("api-token-scope");
    this.create = this.root.getByTestId("api-token-create");
    this.secret = this.root.getByTestId("api-token-secret");
    this.rows = this.root.getByTestId("api-token-row");
  }

  async open(): Promise<void> {
    await this.page.getByTestId("user-menu").click();
    await this.page.getByTestId("open-api-tokens").click();
  }

  kbCheckbox(name: string): Locator {
    return this.root.getByRole("checkbox", { name });
  }
}
