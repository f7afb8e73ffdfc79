import "server-only";
// What the index stores beside a chunk's text, computed without the database: the parse
// threads (lib/ingestion/parse-task.ts) import this module alone, so they do not load the
// database client that the index writer needs.
import { termFrequencies, tokenize } from "./text/tokenize";
import type { ChunkInput } from "./types";

/** What the index stores beside a chunk's text: its tokens and (term, tf) postings. Pure CPU
 *  work, done in the parse worker for ingestion (lib/ingestion/parse-task.ts). */
export interface ChunkPostings {
  /** Tokens joined by spaces (chunks.tokens). */
  tokens: string;
  tokenCount: number;
  terms: string[];
  tfs: number[];
}

export type IndexableChunk = ChunkInput & ChunkPostings;

export function chunkPostings(c: ChunkInput): ChunkPostings {
  // The heading path is part of what a chunk is about; index it with the body.
  const tokens = tokenize(c.headingPath ? `${c.headingPath}\n${c.content}` : c.content);
  const tf = termFrequencies(tokens);
  return { tokens: tokens.join(" "), tokenCount: tokens.length, terms: [...tf.keys()], tfs: [...tf.values()] };
}

/** Consecutive chunks of one file whose heading path holds `term` (ordinals first..last). */
export interface HeadingTermRun {
  term: string;
  first: number;
  last: number;
}

/**
 * Where each heading term is shared (heading_term_runs, migration 20261211000000): per term of a
 * chunk's heading path, the runs of consecutive ordinals whose heading holds it. Lexical search
 * scores such a term, in each chunk of the file holding it in its heading, with the best score
 * any of them gets for it (the section's evidence; see retrieval_lexical_search). A run of one
 * chunk is left out: a chunk alone under its heading is its own section, nothing to share.
 */
export function headingTermRuns(chunks: ReadonlyArray<Pick<ChunkInput, "ordinal" | "headingPath">>): HeadingTermRun[] {
  const termsOf = new Map<string, Set<string>>();
  const sorted = [...chunks].filter((c) => c.headingPath).sort((a, b) => a.ordinal - b.ordinal);
  const open = new Map<string, HeadingTermRun>();
  const out: HeadingTermRun[] = [];
  const close = (r: HeadingTermRun) => {
    if (r.last > r.first) out.push(r);
  };
  for (const c of sorted) {
    let terms = termsOf.get(c.headingPath);
    if (!terms) termsOf.set(c.headingPath, (terms = new Set(tokenize(c.headingPath))));
    for (const [term, run] of open) {
      if (terms.has(term) && run.last === c.ordinal - 1) continue;
      close(run);
      open.delete(term);
    }
    for (const term of terms) {
      const run = open.get(term);
      if (run) run.last = c.ordinal;
      else open.set(term, { term, first: c.ordinal, last: c.ordinal });
    }
  }
  for (const run of open.values()) close(run);
  return out;
}
