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
