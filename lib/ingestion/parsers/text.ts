import { unwrapSoftBreaks } from "@/lib/retrieval/text/soft-breaks";
import { IngestionFailure, type ParseBudget, type ParsedDocument } from "../types";
import { BlockSink } from "./common";

/** Decodes UTF-8 (BOM stripped). Content was validated as UTF-8 at upload. */
export function decodeUtf8(data: Uint8Array): string {
  return new TextDecoder("utf-8").decode(data).replace(/^\ufeff/, "");
}

/**
 * Plain text: paragraphs are separated by blank lines. Form feeds (\f, as written by
 * pdftotext and many exporters) are page breaks: such a file keeps page numbers, and the page
 * budget applies to it like to a PDF. Lines wrapped at a fixed width inside a paragraph are
 * joined (a long line that does not close a sentence, followed by one that starts no list item),
 * so a sentence is not cut in two at its line end.
 */
export function parseText(data: Uint8Array, budget: ParseBudget): ParsedDocument {
  const text = decodeUtf8(data);
  const pages = text.split("\f");
  const paged = pages.length > 1;
  // A trailing form feed does not start another page.
  if (paged && pages[pages.length - 1]!.trim() === "") pages.pop();
  if (paged && pages.length > budget.maxPages) {
    throw new IngestionFailure(
      "FILE_TOO_LARGE",
      `The text has ${pages.length.toLocaleString("en-US")} pages (form feeds); the limit is ${budget.maxPages.toLocaleString("en-US")} pages per file. Split it into smaller files.`,
    );
  }
  const sink = new BlockSink();
  pages.forEach((pageText, i) => {
    if (i % 200 === 0) budget.check();
    const page = paged ? i + 1 : null;
    for (const para of pageText.replace(/\r\n?/g, "\n").split(/\n[ \t]*\n+/)) {
      sink.add("paragraph", unwrapSoftBreaks(para.replace(/[\t ]+/g, " ")), page);
    }
  });
  return { pageCount: paged ? pages.length : null, blocks: sink.blocks };
}
