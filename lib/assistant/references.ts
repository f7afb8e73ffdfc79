import { BUILTIN_SOURCE_TYPE } from "@/lib/retrieval/kb-search";
import type { RetrievalHit } from "@/lib/retrieval/types";
import { quotePages, type PageMarks } from "@/lib/retrieval/page-marks";
import { unwrapSoftBreaks } from "@/lib/retrieval/text/soft-breaks";

// The reference items of SPEC §5, built from retrieval hits only (never from a model).
export interface ReferenceItem {
  ref_id: string;
  index: number;
  file_id: string | null;
  file_name: string;
  page_start: number | null;
  page_end: number | null;
  heading_path: string;
  quote: string;
  score: number;
  chunk_id: string | null;
  source_type: string;
  source_id: string;
  source_uri: string | null;
  source_name: string;
  /** Where in the source the passage is (a provider's source.locator), for the plain-text view. */
  locator: string | null;
  /** The provider's bounded metadata (normalized), shown with an external reference. */
  metadata: Record<string, string | number | boolean | null>;
}

/**
 * The provider-interpretable URI of an external source (seed 002): provider key + the provider's
 * own source id. A raw external URL is never put in a reference (they are persisted as the
 * message's snapshot); opening one asks the provider at open time (/v1/external-sources/…/open).
 */
export function externalSourceUri(provider: string, sourceId: string): string {
  return `ext://${provider}/${encodeURIComponent(sourceId)}`;
}

const QUOTE_CHARS = 300;

/**
 * A reference's quote when the answer quotes nothing particular from it: the passage's start,
 * cut after a whole sentence (or, failing that, a whole word), never inside a word or a
 * surrogate pair, so the viewer's highlight ends where a reader's eye does.
 */
export function cutQuote(content: string, max = QUOTE_CHARS): string {
  const text = unwrapSoftBreaks(content).trim();
  if (text.length <= max) return text;
  const window = text.slice(0, max);
  let cut = -1;
  for (const m of window.matchAll(/[。！？；!?;]["'”’」』）)]*|\.(?=\s)/g)) cut = (m.index ?? 0) + m[0].length;
  if (cut < max * 0.5) {
    const space = window.search(/\s\S*$/);
    const cjkTail = /[\u3400-\u9fff]$/.test(window);
    cut = space >= max * 0.6 && !cjkTail ? space : max;
  }
  if (/[\ud800-\udbff]/.test(text[cut - 1] ?? "")) cut--;
  return `${text.slice(0, cut).trimEnd()}…`;
}

/**
 * `quotes`: reference index → the sentences the answer quotes from it (the extractive engine
 * knows them before it streams), which become that reference's quote: the card shows, and the
 * viewer highlights, the very sentence the answer relies on.
 */
export function toReferences(hits: RetrievalHit[], quotes?: ReadonlyMap<number, string>, pageMarks?: ReadonlyMap<string, PageMarks>): ReferenceItem[] {
  return hits.map((h, i) => {
    const external = h.sourceType !== BUILTIN_SOURCE_TYPE;
    const { locator, ...metadata } = h.metadata ?? {};
    const quote = quotes?.get(i + 1) ?? cutQuote(h.content);
    // `pageMarks`: a chunk spanning pages names the page(s) of its quote, not its whole range.
    const marks = h.chunkId ? pageMarks?.get(h.chunkId) : undefined;
    const pages = marks ? quotePages(h.content, quote, marks) : null;
    return {
      ref_id: `ref_${i + 1}`,
      index: i + 1,
      file_id: h.fileId,
      file_name: h.fileName,
      page_start: pages?.start ?? h.pageStart,
      page_end: pages?.end ?? h.pageEnd,
      heading_path: h.headingPath,
      quote,
      score: Math.round(h.score * 1000) / 1000,
      chunk_id: h.chunkId,
      source_type: h.sourceType,
      source_id: h.sourceId,
      source_uri: external ? externalSourceUri(h.sourceType, h.sourceId) : h.sourceUri,
      source_name: h.sourceName,
      locator: typeof locator === "string" ? locator : null,
      metadata: external ? metadata : {},
    };
  });
}

export function hasCjk(text: string): boolean {
  return /[\u3400-\u9fff\uf900-\ufaff]/.test(text);
}
