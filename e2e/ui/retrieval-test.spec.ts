import path from "node:path";
import { expect, test, uniqueName } from "../pages/fixtures";
import { RetrievalTestPage } from "../pages/retrieval-test-page";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures");

// Local mode (the owner): the retrieval test tab runs the chat's retrieval on a real PDF, shows
// every score and the grounded verdict, and opens a result in the viewer at its page.
test.describe("retrieval test tab", () => {
  test("run a query, read its scores and verdict, open a result at its page", async ({ workspace, page }) => {
    test.setTimeout(180_000);
    const rt = new RetrievalTestPage(page);
    await workspace.goto();
    await workspace.createKb(uniqueName("检索测试库"));
    await workspace.upload([path.join(FIXTURES, "zh-handbook.pdf")]);
    await expect(workspace.fileStatus("zh-handbook.pdf")).toHaveAttribute("data-status", "success", { timeout: 120_000 });

    await rt.open();
    await expect(rt.tab).toHaveAttribute("aria-selected", "true");
    await expect(rt.file.getByRole("option", { name: "zh-handbook.pdf" })).toHaveCount(1);
    await rt.search("离线安装包体积约为多少？");
    const first = rt.hits.first();
    await expect(first).toHaveAttribute("data-rank", "1");
    await expect(first).toContainText("zh-handbook.pdf");
    await expect(first.locator("mark").first()).toBeVisible();
    // Every score that decided the rank, each with its explanation.
    for (const key of ["lexicalRaw", "lexicalRatio", "lexicalCalibrated", "lexical", "vector", "fused", "rerank", "final", "relevanceRank", "mmrPosition"]) {
      await expect(rt.score(first, key)).toBeVisible();
    }
    await expect(rt.score(first, "final")).toContainText(/0\.\d{3}|1\.000/);
    await expect(rt.score(first, "vector")).toContainText("—");
    await expect(rt.verdict).toHaveAttribute("data-answer", "true");
    await expect(rt.verdict).toContainText("依据模式会回答");
    await expect(rt.answerability).toContainText("P =");
    await expect(rt.terms.first()).toBeVisible();

    // A min_score above every score: grounded mode would refuse, and the page says why.
    await rt.search("离线安装包体积约为多少？", { minScore: 1 });
    await expect(rt.minScoreValue).toHaveText("1.00");
    await expect(rt.verdict).toHaveAttribute("data-answer", "false");
    await expect(rt.verdict).toContainText("NO_RELEVANT_CONTEXT");
    await expect(rt.hits.first()).toHaveAttribute("data-passes", "false");

    // Open the top result in the document viewer at its page.
    const pageAttr = await rt.hits.first().getByText(/第 \d+/).first().textContent();
    const wanted = Number(/第 (\d+)/.exec(pageAttr ?? "")?.[1]);
    await rt.hits.first().getByTestId("rt-open").click();
    await expect(page.getByTestId("tab-viewer")).toHaveAttribute("aria-selected", "true");
    await expect(workspace.viewerTargetPage).toHaveAttribute("data-page", String(wanted));
  });

  test("switching language shows the page in English", async ({ workspace, page }) => {
    const rt = new RetrievalTestPage(page);
    await workspace.goto();
    await workspace.createKb(uniqueName("rt-en"));
    await page.getByTestId("language-switch").click();
    await rt.open();
    await expect(rt.tab).toHaveText("Retrieval test");
    await expect(rt.run).toHaveText("Search");
  });
});
