import "server-only";
import { z } from "zod";
import { tokenize } from "@/lib/retrieval/text/tokenize";
import { emptyReason, knowledgeBaseIdsField, quoteList, readyFileCounts, resolveKnowledgeIds, throwIfAborted, toolDb, toolId, toolText } from "./common";
import type { ToolDefinition } from "./types";

// Patterns only a regular expression would use. The tool matches literal text; refusing these
// tells the agent to send the words themselves instead of silently matching nothing.
const REGEX_LIKE = /\.\*|\.\+|\.\?|\\[dDwWsSbB]|\(\?|\[[^\]]*\]|\{\d+(,\d*)?\}|^\^|\$$|\|/;

const keyword = toolText(50, "each keyword").refine(
  (s) => !REGEX_LIKE.test(s),
  "grep_chunks matches literal text, not regular expressions: send the words themselves (for example 保修 and 期限 as two keywords instead of 保修.*期限)",
);

const input = z
  .object({
    keywords: z
      .array(keyword)
      .min(1, "give at least one keyword")
      .max(10, "at most 10 keywords per call")
      .describe("1-10 short keywords or exact phrases (names, numbers, terms), each at most 50 characters."),
    knowledge_base_ids: knowledgeBaseIdsField,
    file_ids: z.array(toolId).max(50, "at most 50 file_ids").optional().describe("Only look in these documents."),
    max_documents: z.number().int().min(1).max(50).default(20).describe("Documents to return, 1-50."),
  })
  .strict();

const chunkMatch = z.object({ chunk_id: z.string(), chunk_index: z.number().int(), snippets: z.array(z.string()) });
const documentMatch = z.object({
  file_id: z.string(),
  file_name: z.string(),
  knowledge_base_id: z.string(),
  keyword_counts: z.record(z.string(), z.number().int()),
  distinct_keywords: z.number().int(),
  total_matches: z.number().int(),
  chunks: z.array(chunkMatch),
});
const output = z.object({ documents: z.array(documentMatch), truncated: z.boolean(), reason: z.string().nullable() });
export type GrepChunksInput = z.infer<typeof input>;
export type GrepChunksOutput = z.infer<typeof output>;

/** Matching chunks read per call; beyond it the result says `truncated` (ask narrower keywords). */
export const GREP_MAX_CHUNKS = 2000;
const CHUNKS_PER_DOCUMENT = 10;
const SNIPPETS_PER_CHUNK = 3;
const SNIPPET_RADIUS = 30;
/** pg_trgm extracts no trigram from a LIKE pattern shorter than this. */
const MIN_TRIGRAM_CHARS = 3;

/** ILIKE pattern that matches `s` literally (backslash is ILIKE's default escape). */
export function likeLiteral(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Every position of `needle` in `hay`, both already lower-cased. */
function positions(hay: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

/** One returned document, ranked and counted in SQL (see run()). */
interface DocRow {
  truncated: boolean;
  file_id: string | null;
  file_name: string;
  knowledge_id: string;
  counts: number[];
  firsts: Array<number | null>;
  distinct_keywords: number;
  total: number;
  chunk_ids: string[];
}

interface ChunkRow {
  id: string;
  ordinal: number;
  content: string;
}

/**
 * The one statement grep_chunks sends (exported so bench:tools can EXPLAIN exactly it): the
 * returnable documents with their counts and first chunk ids, and whether the call was truncated.
 */
export function grepStatement(keywords: readonly string[], kbIds: readonly string[], fileIds: readonly string[] | undefined, maxDocuments: number): { sql: string; params: unknown[] } {
  // One arm per keyword, each answered by an index: keywords of three characters or
  // more by ILIKE over the trigram GIN index (chunks_content_trgm_idx); shorter ones (two-
  // character Chinese words are common) have no trigram, so they are looked up in the word
  // postings (chunk_terms) when they are one token, and only otherwise scanned with ILIKE.
  // Each arm stops at the call's cap: a common keyword (a two-character word in most chunks)
  // otherwise fed every posting of its term into the UNION's sort, which grew with the KB
  // (bench:tools at 200k chunks: p95 342 ms). Past the cap the result is `truncated` anyway.
  //
  // file_ids narrows each arm, not only the arms' union: with the cap inside the arms, a filter
  // applied after them saw at most 2,001 chunks of the whole KB, so a document's counts came
  // out short (and not `truncated`) whenever the KB held more matches than the cap.
  const params: unknown[] = [kbIds, GREP_MAX_CHUNKS + 1];
  let fileFilter = (_alias: string) => "";
  if (fileIds?.length) {
    params.push(fileIds);
    const p = `$${params.length}`;
    fileFilter = (alias) => ` AND ${alias}.file_id = ANY(${p}::text[])`;
  }
  const arms = keywords.map((k) => {
    const terms = [...k].length < MIN_TRIGRAM_CHARS ? tokenize(k) : [];
    if (terms.length === 1) {
      params.push(terms[0]);
      return `(SELECT t.chunk_id FROM chunk_terms t WHERE t.knowledge_id = ANY($1::text[]) AND t.term = $${params.length}${fileFilter("t")} LIMIT $2)`;
    }
    params.push(likeLiteral(k));
    return `(SELECT k.id FROM chunks k WHERE k.knowledge_id = ANY($1::text[]) AND k.content ILIKE $${params.length}${fileFilter("k")} LIMIT $2)`;
  });
  params.push(GREP_MAX_CHUNKS);
  const cap = `$${params.length}`;
  params.push(keywords);
  const kw = `$${params.length}`;
  params.push(maxDocuments);
  const maxDocs = `$${params.length}`;
  // The arms are a UNION, not an OR: an OR mixing a postings subquery with ILIKE cannot be a
  // bitmap OR and made the planner scan every chunk. Matching chunks come first, from the
  // chunks table alone (a materialized CTE), so the planner cannot start from the files table
  // and probe every file's chunks (bench:tools saw that plan with stale file statistics); the
  // files' status is joined to the matches only.
  //
  // Counting and ranking happen here too, so the text of up to GREP_MAX_CHUNKS matching chunks
  // never leaves the database: at 200k chunks, shipping it to JS to count matches was most of
  // the call (bench:tools). Only the documents that can be returned come back, with the ids of
  // their first CHUNKS_PER_DOCUMENT matching chunks; their text is read by a second query.
  // - Counts are literal and non-overlapping, like indexOf stepping past each match:
  //   (length(hay) - length(replace(hay, kw, ''))) / length(kw), with lower() on both sides,
  //   the folding ILIKE itself uses, over the same GREP_MAX_CHUNKS matching chunks of ready
  //   files as before (the first in file, chunk order of what the arms found); one more row
  //   only says `truncated`.
  // - rank() keeps every document tied with the last one returned (same distinct keywords and
  //   total), so JS breaks the tie by name with localeCompare as it always did and then cuts.
  // - `firsts` (the first chunk each keyword occurs in) keeps keyword_counts' key order: keys
  //   in order of first occurrence in the document, then in the order they were asked.
  const sql = `WITH hit AS MATERIALIZED (
       SELECT c.id, c.ordinal, c.content, c.file_id
         FROM chunks c
        WHERE c.id IN (${arms.join(" UNION ")})
        LIMIT ${cap} * 2 + 2),
     m AS MATERIALIZED (
       SELECT h.id, h.ordinal, h.content, h.file_id, row_number() OVER (ORDER BY h.file_id, h.ordinal) AS rn
         FROM hit h JOIN knowledge_files f ON f.id = h.file_id
        WHERE f.status = 'success'
        ORDER BY h.file_id, h.ordinal
        LIMIT ${cap} + 1),
     low AS MATERIALIZED (SELECT m.id, m.ordinal, m.file_id, lower(m.content) AS hay FROM m WHERE m.rn <= ${cap}),
     per_kw AS (
       SELECT low.file_id, low.id, low.ordinal, k.i,
              (length(low.hay) - length(replace(low.hay, k.kw, ''))) / length(k.kw) AS n
         FROM low CROSS JOIN (SELECT lower(u.kw) AS kw, u.i FROM unnest(${kw}::text[]) WITH ORDINALITY AS u(kw, i)) k),
     doc_kw AS (
       SELECT file_id, i, sum(n)::int AS n, min(ordinal) FILTER (WHERE n > 0) AS first
         FROM per_kw GROUP BY file_id, i),
     docs AS (
       SELECT file_id, array_agg(n ORDER BY i) AS counts, array_agg(first ORDER BY i) AS firsts,
              (count(*) FILTER (WHERE n > 0))::int AS distinct_keywords, sum(n)::int AS total
         FROM doc_kw GROUP BY file_id HAVING sum(n) > 0),
     ranked AS (
       SELECT docs.*, rank() OVER (ORDER BY distinct_keywords DESC, total DESC) AS rk FROM docs),
     hit_chunks AS (
       SELECT file_id, id, ordinal, row_number() OVER (PARTITION BY file_id ORDER BY ordinal) AS cn
         FROM per_kw GROUP BY file_id, id, ordinal HAVING sum(n) > 0),
     first_chunks AS (
       SELECT file_id, array_agg(id ORDER BY ordinal) AS chunk_ids
         FROM hit_chunks WHERE cn <= ${CHUNKS_PER_DOCUMENT} GROUP BY file_id)
     SELECT t.truncated, r.file_id, f.name AS file_name, f.knowledge_id, r.counts, r.firsts, r.distinct_keywords, r.total, fc.chunk_ids
       FROM (SELECT count(*) > ${cap} AS truncated FROM m) t
       LEFT JOIN ranked r ON r.rk <= ${maxDocs}
       LEFT JOIN knowledge_files f ON f.id = r.file_id
       LEFT JOIN first_chunks fc ON fc.file_id = r.file_id
      ORDER BY r.file_id`;
  return { sql, params };
}

export const grepChunksTool: ToolDefinition<GrepChunksInput, GrepChunksOutput> = {
  name: "grep_chunks",
  description:
    "Exact, case-insensitive keyword match over the documents' text (literal, not a regular expression). " +
    "Use short keywords or phrases: names, codes, numbers, terms; several alternatives at once (synonyms, " +
    "both spellings). Results are grouped per document with match counts per keyword and snippets, documents " +
    "matching more distinct keywords first. For questions in natural language use knowledge_search; to read " +
    "around a match call list_knowledge_chunks with offset = chunk_index - 2.",
  inputSchema: input,
  outputSchema: output,
  async run(args, ctx) {
    const kbIds = resolveKnowledgeIds(args.knowledge_base_ids, ctx);
    const db = await toolDb();
    const counts = await readyFileCounts(db, kbIds);
    const reason = emptyReason(kbIds, counts);
    if (reason) return { documents: [], truncated: false, reason };
    const keywords = [...new Set(args.keywords)];
    const { sql, params } = grepStatement(keywords, kbIds, args.file_ids, args.max_documents);
    const docs = await db.$queryRawUnsafe<DocRow[]>(sql, ...params);
    throwIfAborted(ctx.signal);
    const truncated = docs[0]?.truncated ?? false;
    const picked = docs
      .filter((d): d is DocRow & { file_id: string } => d.file_id !== null)
      .map((d) => ({ ...d, distinct_keywords: Number(d.distinct_keywords), total: Number(d.total) }))
      .sort((a, b) => b.distinct_keywords - a.distinct_keywords || b.total - a.total || a.file_name.localeCompare(b.file_name))
      .slice(0, args.max_documents);
    // Text only for the chunks shown: at most max_documents × CHUNKS_PER_DOCUMENT.
    const ids = picked.flatMap((d) => d.chunk_ids);
    const texts = new Map<string, ChunkRow>();
    if (ids.length) {
      const rows = await db.$queryRawUnsafe<ChunkRow[]>(`SELECT id, ordinal, content FROM chunks WHERE id = ANY($1::text[])`, ids);
      for (const r of rows) texts.set(r.id, r);
      throwIfAborted(ctx.signal);
    }
    const lowered = keywords.map((k) => k.toLowerCase());
    const documents = picked.map((d) => {
      const order = keywords.map((_, i) => i).filter((i) => d.counts[i]! > 0);
      order.sort((a, b) => d.firsts[a]! - d.firsts[b]! || a - b);
      const chunks: z.infer<typeof chunkMatch>[] = [];
      for (const id of d.chunk_ids) {
        const r = texts.get(id);
        if (!r) continue; // deleted between the two statements
        const hay = r.content.toLowerCase();
        const snippets: string[] = [];
        keywords.forEach((k, i) => {
          for (const p of positions(hay, lowered[i]!)) {
            if (snippets.length >= SNIPPETS_PER_CHUNK) break;
            const from = Math.max(0, p - SNIPPET_RADIUS);
            const to = Math.min(r.content.length, p + k.length + SNIPPET_RADIUS);
            snippets.push(`${from > 0 ? "…" : ""}${r.content.slice(from, to)}${to < r.content.length ? "…" : ""}`);
          }
        });
        // SQL's lower() and JS's toLowerCase() can disagree on rare characters; keep what JS can show.
        if (snippets.length) chunks.push({ chunk_id: r.id, chunk_index: Number(r.ordinal), snippets });
      }
      const doc: z.infer<typeof documentMatch> = {
        file_id: d.file_id,
        file_name: d.file_name,
        knowledge_base_id: d.knowledge_id,
        keyword_counts: Object.fromEntries(order.map((i) => [keywords[i]!, d.counts[i]!])),
        distinct_keywords: d.distinct_keywords,
        total_matches: d.total,
        chunks,
      };
      return doc;
    });
    return { documents, truncated, reason: documents.length ? null : `No document contains ${quoteList(keywords, 3)}.` };
  },
  summarize(out) {
    const matches = out.documents.reduce((n, d) => n + d.total_matches, 0);
    return { count: out.documents.length, summary: `${matches} matches in ${out.documents.length} documents` };
  },
};
