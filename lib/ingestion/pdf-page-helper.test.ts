import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { harbourManualPdf } from "../../e2e/integration/ingestion/support/large-pdf";
import { parsePdf, PARALLEL_MIN_PAGES, type PdfPageHelper } from "./parsers/pdf";
import { pdfPageHelper } from "./pdf-page-helper";
import { IngestionFailure, makeBudget } from "./types";

// A large PDF's second half of pages is extracted by a helper thread (issue 22 item 2). What a
// user gets must not change: the same blocks, pages, headings and dropped headers either way.

let dir: string;
let pdfPath: string;
let pdfBytes: Uint8Array;
const PAGES = PARALLEL_MIN_PAGES + 21;

beforeAll(async () => {
  pdfBytes = await harbourManualPdf(PAGES);
  dir = mkdtempSync(path.join(tmpdir(), "ka-pdf-helper-"));
  pdfPath = path.join(dir, "manual.pdf");
  writeFileSync(pdfPath, pdfBytes);
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const budget = (limits: Partial<Parameters<typeof makeBudget>[0]["limits"]> = {}) =>
  makeBudget({ maxPages: 5000, timeoutMs: 120_000, limits });
const helperFor = (b: ReturnType<typeof budget>) =>
  pdfPageHelper({ filePath: pdfPath, deadline: b.deadline, timeoutMs: 120_000, maxPages: 5000, limits: b.limits });

describe("a large PDF's pages split with a helper thread", () => {
  it("gives the same document as one thread, with the second half extracted by the helper", async () => {
    const alone = await parsePdf(pdfBytes, budget());
    const b = budget();
    const real = helperFor(b);
    const ranges: Array<{ from: number; to: number }> = [];
    let helperPages = 0;
    const recording: PdfPageHelper = (range, onPage, signal) => {
      ranges.push(range);
      return real(range, () => (helperPages++, onPage()), signal);
    };
    const progress: number[] = [];
    const split = await parsePdf(pdfBytes, b, (done, total) => progress.push(done / total), recording);

    expect(ranges).toEqual([{ from: Math.ceil(PAGES / 2) + 1, to: PAGES }]);
    expect(helperPages).toBe(PAGES - Math.ceil(PAGES / 2));
    expect(progress).toHaveLength(PAGES);
    expect(progress.at(-1)).toBe(1);
    expect(split).toEqual(alone);
    // What the comparison covers: a page from the helper's half, a heading, no running header.
    expect(split.blocks.find((x) => x.text.includes(`Berth ${PAGES} takes`))?.page).toBe(PAGES);
    expect(split.blocks.some((x) => x.kind === "heading" && x.text === "Chapter 9")).toBe(true);
    expect(split.blocks.some((x) => x.text.includes("Harbour operations manual"))).toBe(false);
  }, 120_000);

  it("keeps a smaller PDF on one thread", async () => {
    const { PDFDocument, StandardFonts } = await import("pdf-lib");
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    ["Tide tables are posted daily.", "Cranes stop in gales.", "Fuel is sold at berth four."].forEach((t) => pdf.addPage([400, 300]).drawText(t, { x: 40, y: 200, size: 10, font }));
    let called = 0;
    const doc = await parsePdf(await pdf.save(), budget(), undefined, async () => {
      called++;
      return [];
    });
    expect(called).toBe(0);
    expect(doc.blocks.map((x) => x.text)).toEqual(["Tide tables are posted daily.", "Cranes stop in gales.", "Fuel is sold at berth four."]);
  }, 60_000);

  it("the helper thread reports its half's limit failure, and stops when told", async () => {
    const b = budget({ maxTextChars: 500 });
    const e = await helperFor(b)({ from: 300, to: PAGES }, () => {}, new AbortController().signal).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(IngestionFailure);
    expect((e as IngestionFailure).code).toBe("FILE_TOO_LARGE");

    const stop = new AbortController();
    let pages = 0;
    const run = helperFor(budget())({ from: 1, to: PAGES }, () => {
      if (++pages === 5) stop.abort(new Error("the other half failed"));
    }, stop.signal);
    await expect(run).rejects.toThrow("the other half failed");
    expect(pages).toBeLessThan(PAGES);
  }, 120_000);

  it("stops the helper when this thread's half fails", async () => {
    let aborted = false;
    const hanging: PdfPageHelper = (_range, _onPage, signal) =>
      new Promise((_, reject) => signal.addEventListener("abort", () => ((aborted = true), reject(signal.reason)), { once: true }));
    const e = await parsePdf(pdfBytes, budget({ maxTextChars: 500 }), undefined, hanging).catch((x: unknown) => x);
    expect((e as IngestionFailure).code).toBe("FILE_TOO_LARGE");
    expect(aborted).toBe(true);
  }, 60_000);

  it("fails the file when the helper fails, even if this thread's half is fine", async () => {
    const failing: PdfPageHelper = async () => {
      throw new IngestionFailure("FILE_TOO_LARGE", "Page 300 of the PDF has more than 10 separate text pieces");
    };
    const e = await parsePdf(pdfBytes, budget(), undefined, failing).catch((x: unknown) => x);
    expect((e as IngestionFailure).message).toMatch(/Page 300/);
  }, 60_000);
});
