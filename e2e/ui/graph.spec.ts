import { expect, test } from "../pages/fixtures";
import { GraphTab } from "../pages/graph-tab";

// The Graph tab on the seeded sample KB (local mode, :3100 of the e2e range): search the
// product's name, see its neighbourhood, pick a relation (by keyboard), open its passage in the
// document viewer at the cited page with the quote highlighted.
test.describe("knowledge graph tab", () => {
  test("search the product, open a relation's passage at its page", async ({ workspace, page, consoleErrors }) => {
    test.setTimeout(240_000);
    const graph = new GraphTab(page);
    await workspace.goto();
    await workspace.selectKb("示例知识库");
    await workspace.assistant.waitForStatus("ready", 200_000);
    await graph.open();
    await graph.waitReady();
    await expect(page.getByTestId("graph-stats")).toContainText(/\d+ 个实体/);

    await graph.search.fill("云笺");
    await graph.result("云笺").click();
    await expect(graph.canvas).toBeVisible();
    await expect(graph.canvas).toHaveAttribute("aria-label", /云笺/);
    // Strongest first: the handbook's private deployment for large organizations.
    await expect(graph.relations.first()).toContainText("私有化部署");
    await expect(graph.relation("新加坡")).toHaveCount(1);
    // The entity's own mentions are listed first (it was selected by the search).
    await expect(graph.detail).toContainText("「云笺」的出处");

    // Keyboard: focus the relation and press Enter.
    const relation = graph.relations.first();
    await relation.focus();
    await page.keyboard.press("Enter");
    await expect(relation).toHaveAttribute("aria-pressed", "true");
    await expect(graph.detail).toContainText("「私有化部署」");
    const open = graph.passages.first();
    const label = (await open.getAttribute("aria-label")) ?? "";
    const page_ = Number(/第 (\d+) 页/.exec(label)?.[1]);
    expect(page_).toBeGreaterThan(0);
    const quote = (await graph.detail.locator("li p").last().textContent()) ?? "";
    expect(quote).toContain("私有化部署");

    await open.click();
    await expect(page.getByTestId("tab-viewer")).toHaveAttribute("aria-selected", "true");
    await expect(workspace.viewer).toBeVisible();
    await expect(workspace.viewerTargetPage).toHaveAttribute("data-page", String(page_));
    const highlight = workspace.viewerTargetPage.getByTestId("viewer-highlight").first();
    await expect(highlight).toBeVisible();
    await expect(highlight).toBeInViewport();
    expect(consoleErrors).toEqual([]);
  });

  test("a KB with no files shows the empty graph state; English copy", async ({ workspace, page }) => {
    const graph = new GraphTab(page);
    await workspace.goto();
    await page.getByTestId("kb-create").click();
    const name = `图谱空库-${Date.now()}`;
    await page.getByTestId("kb-name-input").fill(name);
    await page.getByTestId("kb-dialog-submit").click();
    await expect(workspace.kbTitle).toHaveText(name);
    await graph.open();
    await expect(graph.panel).toHaveAttribute("data-status", "empty");
    await expect(page.getByTestId("graph-empty")).toContainText("还没有知识图谱");
    await page.getByTestId("language-switch").click();
    await expect(page.getByTestId("graph-empty")).toContainText("No knowledge graph yet");
    await expect(graph.tab).toHaveText("Graph");
  });
});
