import type { Locator, Page } from "@playwright/test";

/** The "评测 / Evaluation" tab of the KB workspace. */
export class EvaluationPage {
  readonly tab: Locator;
  readonly root: Locator;
  readonly uploadInput: Locator;
  readonly uploadResult: Locator;
  readonly parseErrors: Locator;
  readonly sets: Locator;
  readonly minScore: Locator;
  readonly minScoreValue: Locator;
  readonly runs: Locator;
  readonly detail: Locator;
  readonly compare: Locator;
  readonly resultRows: Locator;

  constructor(readonly page: Page) {
    this.tab = page.getByTestId("tab-evaluation");
    this.root = page.getByTestId("evaluation");
    this.uploadInput = page.getByTestId("eval-upload");
    this.uploadResult = page.getByTestId("eval-upload-result");
    this.parseErrors = page.getByTestId("eval-parse-errors").getByRole("listitem");
    this.sets = page.getByTestId("eval-set");
    this.minScore = page.getByTestId("eval-min-score");
    this.minScoreValue = page.getByTestId("eval-min-score-value");
    this.runs = page.getByTestId("eval-run");
    this.detail = page.getByTestId("eval-run-detail");
    this.compare = page.getByTestId("eval-compare");
    this.resultRows = page.getByTestId("eval-result-row");
  }

  async open(): Promise<void> {
    await this.tab.click();
  }

  async uploadSet(name: string, content: string): Promise<void> {
    await this.uploadInput.setInputFiles({ name, mimeType: name.endsWith(".csv") ? "text/csv" : "application/x-ndjson", buffer: Buffer.from(content, "utf8") });
  }

  set(name: string): Locator {
    return this.sets.filter({ has: this.page.getByText(name, { exact: true }) });
  }

  async runSet(name: string, minScore?: number): Promise<void> {
    if (minScore !== undefined) await this.minScore.fill(String(minScore));
    await this.set(name).getByTestId("eval-run-set").click();
  }

  metric(key: string): Locator {
    return this.detail.getByTestId(`eval-metric-${key}`);
  }
}
