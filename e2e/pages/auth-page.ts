import { expect, type Locator, type Page } from "@playwright/test";

export class AuthPage {
  readonly email: Locator;
  readonly password: Locator;
  readonly name: Locator;
  readonly submit: Locator;
  readonly error: Locator;

  constructor(readonly page: Page) {
    this.email = page.getByLabel(/^(邮箱|E-mail)$/);
    this.password = page.getByLabel(/^(密码|Password)$/);
    this.name = page.getByLabel(/^(名字|Name)$/);
    this.submit = page.getByTestId("auth-submit");
    this.error = page.getByTestId("auth-error");
  }

  async signUp(user: { name: string; email: string; password: string }): Promise<void> {
    await this.submitSignUp(user);
    await expect(this.page).toHaveURL(/\/$/);
  }

  /** Fills and sends the sign-up form without expecting where it lands. */
  async submitSignUp(user: { name: string; email: string; password: string }): Promise<void> {
    await this.page.goto("/sign-up");
    await this.name.fill(user.name);
    await this.email.fill(user.email);
    await this.password.fill(user.password);
    await this.submit.click();
  }

  async signIn(user: { email: string; password: string }): Promise<void> {
    await this.page.goto("/sign-in");
    await this.email.fill(user.email);
    await this.password.fill(user.password);
    await this.submit.click();
    await expect(this.page).toHaveURL(/\/$/);
  }
}
