import path from "node:path";
import { expect, test, uniqueName } from "../pages/fixtures";
import { EvaluationPage } from "../pages/evaluation-page";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures");

// A question set for guide.md: answerable questions with their expected passage, questions that
// should not be answered, and one malformed row (line 4: a page that is not a number). The
// answerable ones are repeated so the run lasts long enough to show progress.
const ANSWERABLE = [
  ["What is the retention period for deleted files?", "The retention period for deleted files is 30 days"],
  ["How large may an uploaded file be?", "Each file may be up to 50 MB"],
  ["What should I do when a PDF has no text layer?", "Run OCR on it"],
];
const CSV = [
  "question,expected_file,expected_page,expected_text,unanswerable",
  ...ANSWERABLE.slice(0, 2).map(([q, p]) => `"${q}",guide.md,,"${p}",no`),
  `"Which page lists formats?",guide.md,three,,no`,
  ...Array.from({ length: 40 }, (_, i) => ANSWERABLE.map(([q, p]) => `"${q} (${i})",guide.md,,"${p}",no`)).flat(),
  `"What is the capital of Mongolia?",,,,yes`,
  `"Who won the 1998 football world cup?",,,,yes`,
].join("\n");

test.describe("KB evaluation tab", () => {
  test("upload a set, watch the run, read metrics and charts, compare two runs", async ({ workspace, page }) => {
    test.setTimeout(180_000);
    const ev = new EvaluationPage(page);
    await workspace.goto();
    await workspace.createKb(uniqueName("评测库"));
    await workspace.upload([path.join(FIXTURES, "guide.md")]);
    await expect(workspace.fileStatus("guide.md")).toHaveAttribute("data-status", "success", { timeout: 120_000 });

    await ev.open();
    await expect(ev.tab).toHaveAttribute("aria-selected", "true");
    await expect(page.getByTestId("eval-no-sets")).toBeVisible();
    await ev.uploadSet("guide-questions.csv", CSV);
    // The malformed row is reported with its line number; the other 124 questions were kept.
    await expect(ev.uploadResult).toContainText("124 个问题");
    await expect(ev.parseErrors).toHaveCount(1);
    await expect(ev.parseErrors.first()).toHaveAttribute("data-line", "4");
    await expect(ev.parseErrors.first()).toContainText("第 4 行");
    await expect(ev.set("guide-questions")).toBeVisible();

    // First run at the chat's min_score: progress pushed over the run's events stream (SSE, not
    // polling), then the metrics.
    const stream = page.waitForResponse((r) => /\/evaluation\/runs\/[^/]+\/events$/.test(new URL(r.url()).pathname));
    // Reads of the overview from here to the end: the one after queuing and the one after the
    // terminal event (polling, the fallback, reads it every second).
    let overviewReads = 0;
    const countReads = (r: import("@playwright/test").Request) => {
      if (r.method() === "GET" && /\/evaluation$/.test(new URL(r.url()).pathname)) overviewReads++;
    };
    page.on("request", countReads);
    await ev.runSet("guide-questions");
    const first = ev.runs.first();
    const streamed = await stream;
    expect(streamed.status()).toBe(200);
    expect(streamed.headers()["content-type"]).toMatch(/^text\/event-stream/);
    expect(new URL(streamed.url()).pathname).toMatch(new RegExp(`/runs/${await first.getAttribute("data-run-id")}/events$`));
    await expect(first.getByTestId("eval-run-progress")).toHaveAttribute("data-total", "124");
    await expect(first).toHaveAttribute("data-status", "succeeded", { timeout: 90_000 });
    await expect(first.getByTestId("eval-run-progress")).toHaveAttribute("data-done", "124");
    await expect(first.getByTestId("eval-run-progress")).toContainText("124 / 124");
    page.off("request", countReads);
    expect(overviewReads).toBeLessThanOrEqual(3);
    await expect(ev.detail).toHaveAttribute("data-run-id", (await first.getAttribute("data-run-id"))!);
    await expect(ev.metric("recall_at_5")).toHaveText(/^\d+\.\d%$/);
    await expect(ev.metric("ndcg_at_10")).toHaveText(/^[01]\.\d{3}$/);
    await expect(ev.metric("refusal_rate_unanswerable")).toHaveText(/^\d+\.\d%$/);
    // The retention question is found first: recall well above zero.
    await expect(ev.metric("recall_at_20")).not.toHaveText("0.0%");
    // Charts drawn by recharts: the recall curve and the score bars.
    // (A recall of 100 % at every rank is a flat line, whose box has no height: check its path.)
    await expect(page.getByTestId("eval-chart-recall").locator(".recharts-line-curve")).toHaveAttribute("d", /^M[\d.]+,[\d.]+/);
    await expect(page.getByTestId("eval-chart-scores").locator(".recharts-bar-rectangle").first()).toBeVisible();
    // Per-question table: expected vs top results with the rank of the first correct hit.
    await expect(ev.resultRows.first()).toContainText("What is the retention period for deleted files?");
    await expect(ev.resultRows.first()).toHaveAttribute("data-rank", /^\d+$/);
    await page.getByTestId("eval-results-filter").selectOption("unanswerable");
    await expect(ev.resultRows).toHaveCount(2);

    // Second run at a stricter min_score, then both side by side.
    await ev.runSet("guide-questions", 0.95);
    await expect(ev.minScoreValue).toHaveText("0.95");
    await expect(ev.runs).toHaveCount(2);
    await expect(ev.runs.first()).toHaveAttribute("data-status", "succeeded", { timeout: 90_000 });
    await ev.runs.nth(0).getByTestId("eval-compare-pick").check();
    await ev.runs.nth(1).getByTestId("eval-compare-pick").check();
    await expect(ev.compare).toBeVisible();
    await expect(ev.compare.getByTestId("eval-compare-setting-min_score")).toHaveAttribute("data-differs", "true");
    await expect(ev.compare.getByTestId("eval-compare-setting-chunking")).toHaveAttribute("data-differs", "false");
    await expect(ev.compare.getByTestId("eval-compare-refusal_rate_answerable")).toContainText("pt");

    // Export: a CSV download of the run.
    const [download] = await Promise.all([page.waitForEvent("download"), ev.runs.first().getByTestId("eval-run-export").click()]);
    expect(download.suggestedFilename()).toMatch(/^evaluation-.+\.csv$/);
  });

  test("build a set in the page, in English, by keyboard", async ({ workspace, page }) => {
    const ev = new EvaluationPage(page);
    await workspace.goto();
    await workspace.createKb(uniqueName("eval-en"));
    await page.getByTestId("language-switch").click();
    await ev.tab.focus();
    await page.keyboard.press("Enter");
    await expect(ev.tab).toHaveText("Evaluation");
    await expect(page.getByTestId("eval-generate")).toBeDisabled();
    await expect(ev.root).toContainText("Generating questions needs a chat model.");
    await page.getByTestId("eval-new-set").click();
    const editor = page.getByTestId("eval-editor");
    await editor.getByTestId("eval-editor-question").first().fill("Is there a refund policy?");
    await expect(editor.getByTestId("eval-editor-save")).toBeDisabled();
    await editor.getByRole("checkbox", { name: "Should not answer" }).check();
    await editor.getByTestId("eval-editor-name").fill("hand-made");
    await editor.getByTestId("eval-editor-save").click();
    await expect(ev.set("hand-made")).toContainText("1 questions");
  });
});
