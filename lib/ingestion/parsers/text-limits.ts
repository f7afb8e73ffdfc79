import { IngestionFailure, type ParseBudget, type ParsedDocument } from "../types";

// The extracted-text limit per file (issue 16, item 2), one message for every format.

export function textTooLarge(limit: number, found?: number): IngestionFailure {
  const m = (n: number) => `${(n / 1e6).toLocaleString("en-US", { maximumFractionDigits: 1 })} million`;
  return new IngestionFailure(
    "FILE_TOO_LARGE",
    `The document contains ${found ? `${m(found)} characters` : `more than ${m(limit)} characters`} of text; the limit is ${m(limit)} characters per file. Split it into smaller files and upload them again.`,
  );
}

/**
 * Characters (code points) in UTF-8 bytes without decoding them: every byte that does not
 * continue a sequence starts one. Lets a plain-text or Markdown file over the limit be refused
 * before its text is built.
 */
export function utf8CharCount(data: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < data.length; i++) if ((data[i]! & 0xc0) !== 0x80) n++;
  return n;
}

export function assertTextWithinLimit(doc: ParsedDocument, budget: ParseBudget): number {
  let chars = 0;
  for (const b of doc.blocks) chars += b.text.length;
  if (chars > budget.limits.maxTextChars) throw textTooLarge(budget.limits.maxTextChars, chars);
  return chars;
}
