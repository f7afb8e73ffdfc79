import type { Locator, Page } from "@playwright/test";

/** The "检索测试 / Retrieval test" tab of the KB workspace. */
export class RetrievalTestPage {
  readonly tab: Locator;
  readonly root: Locator;
  readonly query: Locator;
  readonly file: Locator;
  readonly topK: Locator;
  readonly minScore: Locator;
  readonly minScoreValue: Locator;
  readonly run: Locator;
  readonly verdict: Locator;
  readonly hits: Locator;
  readonly terms: Locator;
  readonly answerability: Locator;

  constructor(readonly page: Page) {
    this.tab = page.getByTestId("tab-retrieval-test");
    this.root = page.getByTestId("retrieval-test");
    this.query = page.getByTestId("rt-query");
    this.file = page.getByTestId("rt-file");
    this.topK = page.getByTestId("rt-topk");
    this.minScore = page.getByTestId("rt-min-score");
    this.minScoreValue = page.getByTestId("rt-min-score-value");
    this.run = page.getByTestId("rt-run");
    this.verdict = page.getByTestId("rt-verdict");
    this.hits = page.getByTestId("rt-hit");
    this.terms = page.getByTestId("rt-term");
    this.answerability = page.getByTestId("rt-answerability");
  }

  async open(): Promise<void> {
    await this.tab.click();
  }

  async search(query: string, opts: { minScore?: number; topK?: number } = {}): Promise<void> {
    await this.query.fill(query);
    if (opts.topK !== undefined) await this.topK.fill(String(opts.topK));
    if (opts.minScore !== undefined) await this.minScore.fill(String(opts.minScore));
    await this.run.click();
  }

  /** The row of one score ("final", "lexicalRaw", …) in a hit's score table. */
  score(hit: Locator, key: string): Locator {
    return hit.getByTestId("rt-scores").locator(`tr[data-score="${key}"]`);
  }
}
