import type { ErrorCode } from "@/lib/errors";

// Common output of every parser (SPEC §7): ordered blocks with their page and heading path.

export type BlockKind = "heading" | "paragraph" | "list" | "table" | "code";

export interface Block {
  text: string;
  /** 1-based page number, or null for formats without pages. */
  page: number | null;
  /** Headings enclosing this block, outermost first, exactly as written in the source. For a
   *  heading block: the path including the heading itself. */
  headingPath: string[];
  kind: BlockKind;
  /** Heading level 1..6 (heading blocks only). */
  level?: number;
}

export interface ParsedDocument {
  pageCount: number | null;
  blocks: Block[];
}

/** Per-file content limits (issue 16): what one file may expand to once parsed. */
export interface ContentLimits {
  /** Characters of extracted text per file. */
  maxTextChars: number;
  /** Passages (chunks) per file. */
  maxChunks: number;
  /** PDF: bytes all its compressed streams may inflate to, together. */
  pdfMaxInflatedBytes: number;
  /** PDF: text items (runs) on one page. */
  pdfMaxItemsPerPage: number;
  /** PDF: time one page may take to extract. */
  pdfMaxPageMs: number;
}

export const DEFAULT_CONTENT_LIMITS: ContentLimits = {
  maxTextChars: 20_000_000,
  maxChunks: 50_000,
  pdfMaxInflatedBytes: 256 * 1024 * 1024,
  pdfMaxItemsPerPage: 100_000,
  pdfMaxPageMs: 15_000,
};

/** Limits a parser runs under; check() throws an IngestionFailure once the deadline passed. */
export interface ParseBudget {
  maxPages: number;
  deadline: number;
  signal?: AbortSignal;
  limits: ContentLimits;
  check(): void;
}

/**
 * A failure with a reason a person can act on. `code` is one of the API error codes; the
 * message is stored in knowledge_files.error_message and sent in the SSE `error` event.
 */
export class IngestionFailure extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "IngestionFailure";
    this.code = code;
  }
}

export function isIngestionFailure(e: unknown): e is IngestionFailure {
  return e instanceof IngestionFailure;
}

export function makeBudget(opts: { maxPages: number; timeoutMs: number; signal?: AbortSignal; deadline?: number; limits?: Partial<ContentLimits> }): ParseBudget {
  const deadline = opts.deadline ?? Date.now() + opts.timeoutMs;
  const seconds = Math.round(opts.timeoutMs / 1000);
  return {
    maxPages: opts.maxPages,
    deadline,
    signal: opts.signal,
    limits: { ...DEFAULT_CONTENT_LIMITS, ...opts.limits },
    check() {
      if (opts.signal?.aborted) throw new IngestionFailure("INTERNAL_ERROR", "Processing was cancelled.");
      if (Date.now() > deadline) {
        throw new IngestionFailure(
          "FILE_TOO_LARGE",
          `Processing took longer than the ${seconds} s time budget of one file (parsing and indexing). Split the document into smaller files and upload them again.`,
        );
      }
    },
  };
}
