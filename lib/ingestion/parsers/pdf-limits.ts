import { constants, createInflate } from "node:zlib";
import { IngestionFailure, type ParseBudget } from "../types";

// Limits a PDF is held to before and while pdf.js reads it (issue 16, item 3). pdf.js inflates a
// content stream whole when a page needs it and keeps what it built, so a 1 MB file whose stream
// inflates to 1 GiB took a gigabyte of memory. Its Flate streams are therefore inflated here
// first, as a stream that only counts bytes (16 KB of memory), against a budget for the whole
// file; the per-page limits (text items, time) are checked inside the page in pdf.ts.

const mb = (n: number) => `${Math.round(n / 1024 / 1024).toLocaleString("en-US")} MB`;

export function inflateBomb(limit: number): IngestionFailure {
  return new IngestionFailure(
    "FILE_TOO_LARGE",
    `The PDF was rejected: its compressed content inflates to more than ${mb(limit)}, the limit per file (a real document this large should be split into smaller files).`,
  );
}

/** Bytes one compressed stream inflates to, stopping as soon as `limit` is passed. */
function inflatedSize(data: Uint8Array, limit: number): Promise<number> {
  return new Promise((resolve) => {
    // Truncated or damaged streams still count what they gave (pdf.js reads them the same way).
    const z = createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
    let n = 0;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      resolve(n);
    };
    z.on("data", (chunk: Buffer) => {
      n += chunk.length;
      if (n > limit) {
        z.destroy();
        finish();
      }
    });
    z.on("error", finish);
    z.on("end", finish);
    z.on("close", finish);
    z.end(data);
  });
}

/**
 * Sums what the file's Flate-compressed streams (content, fonts, object streams) inflate to and
 * throws FILE_TOO_LARGE once that passes `budget.limits.pdfMaxInflatedBytes`. Returns the total.
 * Streams are found as `>> stream` … `endstream` in the raw bytes, as a repairing reader does;
 * streams cannot nest, so each compressed byte is counted once.
 */
export async function checkPdfInflatedBytes(data: Uint8Array, budget: ParseBudget): Promise<number> {
  const limit = budget.limits.pdfMaxInflatedBytes;
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("latin1");
  const start = />>\s*stream\r?\n/g;
  let total = 0;
  for (let m = start.exec(text); m; m = start.exec(text)) {
    budget.check();
    const from = m.index + m[0].length;
    const end = text.indexOf("endstream", from);
    const to = end < 0 ? text.length : end;
    const dict = text.slice(Math.max(0, m.index - 2048), m.index);
    const open = dict.lastIndexOf("stream");
    // Only this stream's dictionary: after the previous stream's end.
    if (/\/(?:FlateDecode|Fl)\b/.test(open >= 0 ? dict.slice(open) : dict)) {
      total += await inflatedSize(data.subarray(from, to), limit - total);
      if (total > limit) throw inflateBomb(limit);
    }
    start.lastIndex = to;
  }
  return total;
}

/** Reads one page's text items as pdf.js streams them, within the per-page limits. */
export async function readPageItems<T>(
  page: { streamTextContent(params?: object): ReadableStream<{ items: unknown[] }> },
  pageNo: number,
  budget: ParseBudget,
): Promise<T[]> {
  const { pdfMaxItemsPerPage, pdfMaxPageMs } = budget.limits;
  const started = Date.now();
  const reader = page.streamTextContent({ includeMarkedContent: false }).getReader();
  const items: T[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const it of value.items) items.push(it as T);
      if (items.length > pdfMaxItemsPerPage) {
        throw new IngestionFailure(
          "FILE_TOO_LARGE",
          `Page ${pageNo} of the PDF has more than ${pdfMaxItemsPerPage.toLocaleString("en-US")} separate text pieces, the limit per page; it is not an ordinary text page. Export the document again (e.g. "print to PDF") and upload the new copy.`,
        );
      }
      if (Date.now() - started > pdfMaxPageMs) throw slowPage(pageNo, pdfMaxPageMs);
      budget.check();
    }
  } finally {
    // Not awaited: after a limit stops the page, pdf.js may settle the cancellation only when its
    // own parsing of the page ends, which for a hostile page is the very work being refused.
    void reader.cancel().catch(() => {});
  }
  return items;
}

export function slowPage(pageNo: number, limitMs: number): IngestionFailure {
  return new IngestionFailure(
    "FILE_TOO_LARGE",
    `Page ${pageNo} of the PDF took longer than ${Math.round(limitMs / 1000)} s to read, the limit per page. Export the document again (e.g. "print to PDF") or split it, and upload the new copy.`,
  );
}
