// Contracts of the retrieval core (SPEC §8). The assistant, the agent tools and the provider
// endpoint all call retrieve() in lib/retrieval/core.ts with these shapes.

export type SourceStatus = "ok" | "empty" | "timeout" | "error" | "unavailable";

/** What a model or a client may propose. */
export interface RetrievalRequest {
  query: string;
  topK: number;
  knowledgeBaseIds: string[];
  filters?: { fileIds?: string[] | null } | null;
}

/** Injected by the server only, never taken from a request body. */
export interface RetrievalContext {
  ownerId: string;
  sessionId: string;
  turnId: string;
  traceId: string;
  signal: AbortSignal;
  /** Precomputed access targets: the KB ids this caller may read. Nothing outside is searched. */
  readableKnowledgeIds: ReadonlySet<string>;
}

export interface RetrievalHit {
  /** Stable within a turn; for the built-in provider the chunk id. */
  id: string;
  chunkId: string | null;
  fileId: string | null;
  fileName: string;
  knowledgeId: string | null;
  pageStart: number | null;
  pageEnd: number | null;
  headingPath: string;
  content: string;
  /** Calibrated 0..1; min_score compares against this. */
  score: number;
  sourceType: string;
  sourceId: string;
  sourceUri: string | null;
  sourceName: string;
  /** Provider content is untrusted data; always true, kept explicit for the prompt builder. */
  untrusted: true;
  metadata?: Record<string, string | number | boolean | null>;
}

export interface SourceSummary {
  source_type: string;
  status: SourceStatus;
  count: number;
}

export interface RetrievalResult {
  hits: RetrievalHit[];
  sources: SourceSummary[];
}

/** One chunk as ingestion produces it, before indexing. */
export interface ChunkInput {
  ordinal: number;
  content: string;
  pageStart: number | null;
  pageEnd: number | null;
  /** A chunk spanning pages: [offset in content, page] where each page begins (chunks.page_marks). */
  pageMarks?: Array<[number, number]> | null;
  headingPath: string;
}
