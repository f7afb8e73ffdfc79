import { BUILTIN_SOURCE_TYPE } from "@/lib/retrieval/kb-search";
import type { RetrievalHit } from "@/lib/retrieval/types";

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

export function toReferences(hits: RetrievalHit[]): ReferenceItem[] {
  return hits.map((h, i) => {
    const external = h.sourceType !== BUILTIN_SOURCE_TYPE;
    const { locator, ...metadata } = h.metadata ?? {};
    return {
      ref_id: `ref_${i + 1}`,
      index: i + 1,
      file_id: h.fileId,
      file_name: h.fileName,
      page_start: h.pageStart,
      page_end: h.pageEnd,
      heading_path: h.headingPath,
      quote: h.content.length > QUOTE_CHARS ? `${h.content.slice(0, QUOTE_CHARS)}…` : h.content,
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
