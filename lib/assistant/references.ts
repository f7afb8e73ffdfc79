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
}

const QUOTE_CHARS = 300;

export function toReferences(hits: RetrievalHit[]): ReferenceItem[] {
  return hits.map((h, i) => ({
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
    source_uri: h.sourceUri,
    source_name: h.sourceName,
  }));
}

export function hasCjk(text: string): boolean {
  return /[\u3400-\u9fff\uf900-\ufaff]/.test(text);
}
