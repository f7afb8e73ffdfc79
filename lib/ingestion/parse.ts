import "server-only";
import { readFile } from "node:fs/promises";
import type { FileType } from "./sniff";
import { IngestionFailure, type ParseBudget, type ParsedDocument } from "./types";
import { describeError } from "./parsers/common";
import { parseDocx } from "./parsers/docx";
import { parseHtml } from "./parsers/html";
import { parseMarkdown } from "./parsers/markdown";
import { parsePdf } from "./parsers/pdf";
import { parseText } from "./parsers/text";
import { assertTextWithinLimit, textTooLarge, utf8CharCount } from "./parsers/text-limits";

/** A plain-text or Markdown original over the text limit is refused before it is decoded. */
async function readTextWithinLimit(filePath: string, budget: ParseBudget): Promise<Buffer> {
  const data = await readFile(filePath);
  const chars = utf8CharCount(data);
  if (chars > budget.limits.maxTextChars) throw textTooLarge(budget.limits.maxTextChars, chars);
  return data;
}

export interface ParseOptions {
  budget: ParseBudget;
  /** Parse progress 0..1 (PDF pages). */
  onProgress?: (fraction: number) => void;
}

/**
 * Parses one stored original. Any exception becomes an IngestionFailure for this file only; a
 * parser that overruns the time budget is abandoned (its promise is left to settle on its own)
 * and the file fails with a reason.
 */
export async function parseFile(fileType: FileType, filePath: string, opts: ParseOptions): Promise<ParsedDocument> {
  const { budget } = opts;
  const work = (async (): Promise<ParsedDocument> => {
    budget.check();
    switch (fileType) {
      case "pdf":
        return parsePdf(await readFile(filePath), budget, (done, total) => opts.onProgress?.(done / total));
      case "docx":
        return parseDocx({ path: filePath }, budget);
      case "md":
        return parseMarkdown(await readTextWithinLimit(filePath, budget), budget);
      case "html":
        return parseHtml(await readFile(filePath), budget);
      case "txt":
        return parseText(await readTextWithinLimit(filePath, budget), budget);
      default:
        throw new IngestionFailure("FILE_TYPE_UNSUPPORTED", `Unsupported file type: ${String(fileType)}`);
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      try {
        budget.check();
        reject(new IngestionFailure("FILE_TOO_LARGE", "Parsing took longer than its time budget. Split the document into smaller files."));
      } catch (e) {
        reject(e);
      }
    }, Math.max(0, budget.deadline - Date.now()) + 50);
  });
  try {
    const doc = await Promise.race([work, timeout]);
    if (!doc.blocks.some((b) => b.text.trim())) {
      throw new IngestionFailure("FILE_TYPE_UNSUPPORTED", "The document contains no text to index.");
    }
    assertTextWithinLimit(doc, budget);
    return doc;
  } catch (e) {
    if (e instanceof IngestionFailure) throw e;
    throw new IngestionFailure("FILE_TYPE_UNSUPPORTED", `The ${fileType.toUpperCase()} file could not be parsed: ${describeError(e)}.`);
  } finally {
    clearTimeout(timer);
    work.catch(() => {});
  }
}
