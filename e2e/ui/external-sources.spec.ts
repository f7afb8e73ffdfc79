import { expect, test } from "../pages/fixtures";
import { KnowledgePanel } from "../pages/knowledge-panel";
import { PORTS } from "../support/ports";

// External knowledge sources in the browser (issue 18): the local server has "docs" (lists and
// opens its documents) and "notes" (neither) on the local test provider (playwright.config.ts).
const PROVIDER = `http://127.0.0.1:${PORTS.fakeProvider}`;
const setProvider = (state: Record<string, unknown>) => fetch(`${PROVIDER}/__state`, { method: "POST", body: JSON.stringify(state) });

test.describe("external knowledge sources", () => {
  test.afterEach(async () => {
    await setProvider({ mode: "ok", listingFails: false });
  });

  test("bind a document, ask, open it and see the plain fallback; unbind and the next turn stops using it", async ({ page, workspace, assistant }) => {
    test.setTimeout(180_000);
    await setProvider({ mode: "ok", listingFails: false });
    await workspace.goto();
    await assistant.waitForStatus("ready");
    await assistant.newConversation();
    const knowledge = new KnowledgePanel(page);
    await knowledge.toggle.click();
    await expect(knowledge.root.locator('[data-testid="knowledge-item"][data-kind="builtin"]')).toBeVisible();
    // "notes" has no listing: no browse entry (no source view registered), only "everything accessible".
    await expect(knowledge.provider("notes").getByTestId("browse-button")).toHaveCount(0);

    await knowledge.provider("docs").getByTestId("browse-button").click();
    await knowledge.listingItem("docs", "Team handbook").getByRole("button", { name: /Team handbook/ }).first().click();
    await knowledge.listingItem("docs", "Release checklist").getByTestId("bind-button").click();
    await expect(knowledge.bound("docs")).toContainText("Team handbook");
    await expect(knowledge.bound("docs")).toContainText("Release checklist");
    await expect(knowledge.bound("docs").getByTestId("provider-badge")).toHaveText("DO");
    await knowledge.provider("notes").getByTestId("bind-all-button").click();
    await expect(knowledge.bound("notes")).toBeVisible();

    await knowledge.toggle.click();
    await assistant.ask("release approvers rollback plan deploy window");
    // By position: lastAnswer() would move to the next answer once it exists.
    const first = assistant.assistantMessages.nth(0);
    await expect(first.getByTestId("references-toggle")).toBeVisible({ timeout: 60_000 });
    // References the answer does not cite sit under a collapsed "other retrieved passages" line.
    const others = first.getByTestId("other-references-toggle");
    if ((await others.count()) > 0) await others.click();
    const docsCard = assistant.referenceCards(first).filter({ has: page.locator('[data-testid="provider-badge"][data-provider="docs"]') });
    const notesCard = assistant.referenceCards(first).filter({ has: page.locator('[data-testid="provider-badge"][data-provider="notes"]') });
    await expect(docsCard).toHaveCount(1);
    await expect(docsCard).toContainText("Release checklist");
    await expect(notesCard.first()).toBeVisible();

    // Registered opener: resolved through the provider at open time, opened in a new tab.
    const popup = page.waitForEvent("popup");
    await docsCard.getByTestId("reference-open").click();
    const tab = await popup;
    await expect(tab.getByTestId("provider-page")).toHaveText("Release checklist");
    await tab.close();
    // No opener: plain text with the name and the provider's locator and metadata.
    await expect(notesCard.first().getByTestId("reference-plain")).toBeVisible();
    await expect(notesCard.first().getByTestId("reference-open")).toHaveCount(0);
    await expect(notesCard.first().getByTestId("reference-locator")).toBeVisible();

    // Unbind "docs": the next turn does not use it; the first answer keeps its references.
    await knowledge.toggle.click();
    await expect(knowledge.bound("docs")).toBeVisible();
    await knowledge.bound("docs").getByTestId("unbind-button").click();
    await expect(knowledge.bound("docs")).toHaveCount(0);
    await knowledge.toggle.click();
    await assistant.ask("release approvers rollback plan deploy window again");
    const second = assistant.assistantMessages.nth(1);
    await expect(second.getByTestId("references-toggle")).toBeVisible({ timeout: 60_000 });
    await expect(assistant.referenceCards(second).filter({ has: page.locator('[data-testid="provider-badge"][data-provider="docs"]') })).toHaveCount(0);
    await expect(assistant.referenceCards(first).filter({ has: page.locator('[data-testid="provider-badge"][data-provider="docs"]') })).toHaveCount(1);
  });

  test("a provider that fails to load shows a local notice; the built-in KB and unbinding keep working", async ({ page, workspace, assistant }) => {
    test.setTimeout(120_000);
    await workspace.goto();
    await assistant.waitForStatus("ready");
    await assistant.newConversation();
    const knowledge = new KnowledgePanel(page);
    await knowledge.toggle.click();
    await knowledge.provider("notes").getByTestId("bind-all-button").click();
    await expect(knowledge.bound("notes")).toBeVisible();
    await setProvider({ listingFails: true });
    await knowledge.provider("docs").getByTestId("browse-button").click();
    await expect(knowledge.provider("docs").getByTestId("provider-notice")).toContainText(/Docs/);
    await expect(knowledge.root.locator('[data-testid="knowledge-item"][data-kind="builtin"]')).toBeVisible();
    await knowledge.bound("notes").getByTestId("unbind-button").click();
    await expect(knowledge.bound("notes")).toHaveCount(0);
  });
});
