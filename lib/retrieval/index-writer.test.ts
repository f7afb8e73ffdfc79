import { describe, expect, it } from "vitest";
import { analyzeDue, maybeAnalyze } from "./index-writer";

// When the index writer runs VACUUM then ANALYZE on posting_pages (embedded PGlite has no autovacuum).
// bench:retrieval's cmrc2018-sent set is 848 files of ~12 chunks, ~183 pages each (a page per
// term and file, one posting in most): the analyze work must stay proportional to what is written.
function analyzesFor(files: number, pagesPerFile: number): number {
  let table = 0;
  let since = 0;
  let n = 0;
  for (let f = 0; f < files; f++) {
    table += pagesPerFile;
    since += pagesPerFile;
    if (analyzeDue(since, table - since)) {
      n++;
      since = 0;
    }
  }
  return n;
}

describe("analyzeDue", () => {
  it("analyzes many small files about once per ANALYZE sample written, not once per 2,000 pages", () => {
    const total = 848 * 183;
    const n = analyzesFor(848, 183);
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThanOrEqual(Math.ceil(total / 30_000));
  });

  it("still analyzes a growing table at 10 % growth once it is large", () => {
    expect(analyzeDue(29_999, 0)).toBe(false);
    expect(analyzeDue(30_000, 0)).toBe(true);
    expect(analyzeDue(50_000, 600_000)).toBe(false);
    expect(analyzeDue(60_000, 600_000)).toBe(true);
  });
});

describe("maybeAnalyze", () => {
  it("runs VACUUM and ANALYZE as two statements with a turn of the event loop between them", async () => {
    // A fake connection: records each statement, and what ran on the event loop between them.
    const log: string[] = [];
    const db = {
      $queryRawUnsafe: async () => [{ n: 0 }],
      $executeRawUnsafe: async (sql: string) => {
        log.push(sql);
        // Queued while this statement runs, as a request arriving meanwhile would be.
        setImmediate(() => log.push("(other work)"));
        return 0;
      },
    };
    await maybeAnalyze(db as never, 40_000);
    expect(log).toEqual(["VACUUM posting_pages", "(other work)", "ANALYZE posting_pages"]);
  });
});
