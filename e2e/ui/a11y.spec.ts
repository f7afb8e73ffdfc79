import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { PASSWORD_URL, expect, test } from "../pages/fixtures";

async function seriousViolations(page: Page, include?: string) {
  const builder = new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]);
  if (include) builder.include(include);
  const { violations } = await builder.analyze();
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test.describe("accessibility (axe)", () => {
  test("flow gallery states", async ({ gallery, page }) => {
    // axe over every gallery state (29) takes about a minute on a shared two-core machine.
    test.setTimeout(180_000);
    await gallery.goto();
    await expect(gallery.states.first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test("workspace with the assistant", async ({ workspace, page }) => {
    await workspace.goto();
    await expect(workspace.kbItems.first()).toBeVisible();
    await expect(workspace.assistant.status).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test("sign-in and sign-up pages", async ({ page }) => {
    await page.goto(`${PASSWORD_URL}/sign-in`);
    await expect(page.getByTestId("auth-submit")).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${PASSWORD_URL}/sign-up`);
    await expect(page.getByTestId("auth-submit")).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  test("every control in the composer area is reachable by keyboard", async ({ gallery, page }) => {
    await gallery.goto();
    const panel = gallery.assistant("welcome-ready");
    // The composer comes right after the header in focus order (issue 20), before the list.
    await panel.kbSelect.focus();
    await page.keyboard.press("Tab");
    await expect(panel.composer).toBeFocused();
    await page.keyboard.type("问题");
    await page.keyboard.press("Tab");
    await expect(panel.sendButton).toBeFocused();
    // Then the message list: the welcome's example questions.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await expect(panel.exampleQuestions.first()).toBeFocused();
  });
});
