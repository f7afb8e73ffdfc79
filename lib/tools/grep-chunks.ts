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

interface Row {
  id: string;
  ordinal: number;
  content: string;
  file_id: string;
  file_name: string;
  knowledge_id: string;
}

/**
 * The one statement grep_chunks sends (exported so bench:tools can EXPLAIN exactly it): up to
 * GREP_MAX_CHUNKS + 1 matching chunks of ready files with their text, in file and chunk order.
 */
export function grepStatement(keywords: readonly string[], kbIds: readonly string[], fileIds: readonly string[] | undefined): { sql: string; params: unknown[] } {
  // One arm per keyword, each answered by an index: keywords of three characters or
  // more by ILIKE over the trigram GIN index (chunk_grep_kb_text_idx); shorter ones (two-
  // character Chinese words are common) have no trigram, so they are looked up in the word
  // postings (posting_pages, unnested) when they are one token, and only otherwise scanned with ILIKE.
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
  // Each arm gives (file, position in the file), which names a chunk ((file_id, ordinal) is
  // unique): a postings page carries its chunks' ordinals, so a word looked up there needs nothing
  // from the chunks table to be placed.
  const arms = keywords.map((k) => {
    const terms = [...k].length < MIN_TRIGRAM_CHARS ? tokenize(k) : [];
    if (terms.length === 1) {
      params.push(terms[0]);
      return `(SELECT t.file_id, e.ordinal FROM posting_pages t CROSS JOIN LATERAL unnest(posting_ordinals(t.postings)) AS e(ordinal) WHERE t.knowledge_id = ANY($1::text[]) AND t.term = $${params.length}${fileFilter("t")} LIMIT $2)`;
    }
    params.push(likeLiteral(k));
    const p = `$${params.length}`;
    // The trigram index holds the chunks of files whose entries are built (chunk_grep, migration
    // 20261214000000: added after a file is searchable, lib/retrieval/grep-index.ts); the chunks
    // of a searchable file still waiting for them are scanned, one file at a time by its key.
    // The index is keyed by knowledge base and text (migration 20261216000000), and asked once per
    // searched knowledge base (a GIN scan cannot take `= ANY(array)`): keyed by text alone, it gave
    // the matching chunks of every knowledge base of the instance, each rechecked before the
    // others' were dropped, so a small KB's grep paid for everybody's data.
    // OFFSET 0 keeps the index match a subquery of its own: joined directly, the planner may walk
    // the KB's chunks and test each one's text through chunk_grep instead of asking the index.
    return (
      `(SELECT k.file_id, k.ordinal FROM unnest($1::text[]) AS s(kb) CROSS JOIN LATERAL (SELECT g.chunk_id FROM chunk_grep g WHERE g.knowledge_id = s.kb AND chunk_grep_text(g.chunk_id) ILIKE ${p} OFFSET 0) g JOIN chunks k ON k.id = g.chunk_id WHERE TRUE${fileFilter("k")} LIMIT $2)` +
      ` UNION (SELECT k.file_id, k.ordinal FROM knowledge_files w JOIN chunks k ON k.file_id = w.id WHERE w.knowledge_id = ANY($1::text[]) AND w.status = 'success' AND NOT w.grep_indexed AND k.content ILIKE ${p}${fileFilter("k")} LIMIT $2)`
    );
  });
  // The arms are a UNION, not an OR: an OR mixing a postings subquery with ILIKE cannot be a
  // bitmap OR and made the planner scan every chunk.
  //
  // Which chunks are shown is decided before any text is read: the matches of ready files, in
  // file and chunk order, cut at the cap, from the arms' ids and positions alone (m); only those
  // chunks are then read with their text (one probe of the (file_id, ordinal) key each, in that order). Before,
  // every chunk the arms found (up to twice the cap) was read with its text and most were then
  // cut: at 200k chunks those probes were most of the statement's time (bench-tools.md).
  //
  // Counting stays in JS on purpose: counting the same chunks in SQL (lower(), replace(), per-
  // document aggregates and rank(), text read only for the chunks returned) was tried and was
  // slower on PGlite — p50 ~2x in an interleaved comparison in one process at 9.9k chunks —
  // because lower() and replace() per chunk and keyword cost more inside the database than
  // shipping the text and running indexOf (docs/bench-tools.md, eleventh session).
  const sql = `WITH m AS MATERIALIZED (
       SELECT u.file_id, u.ordinal, f.name AS file_name
         FROM (${arms.join(" UNION ")}) u
         JOIN knowledge_files f ON f.id = u.file_id
        WHERE f.status = 'success'
        ORDER BY u.file_id, u.ordinal
        LIMIT $2)
     SELECT c.id, m.ordinal, c.content, m.file_id, m.file_name, c.knowledge_id
       FROM m JOIN chunks c ON c.file_id = m.file_id AND c.ordinal = m.ordinal
      ORDER BY m.file_id, m.ordinal`;
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
    if (kbIds.length === 0) return { documents: [], truncated: false, reason: emptyReason(kbIds, { ready: 0, total: 0 }) };
    const db = await toolDb();
    const keywords = [...new Set(args.keywords)];
    const { sql, params } = grepStatement(keywords, kbIds, args.file_ids);
    const rows = await db.$queryRawUnsafe<Row[]>(sql, ...params);
    throwIfAborted(ctx.signal);
    const truncated = rows.length > GREP_MAX_CHUNKS;
    const lowered = keywords.map((k) => k.toLowerCase());
    const docs = new Map<string, z.infer<typeof documentMatch>>();
    for (const r of rows.slice(0, GREP_MAX_CHUNKS)) {
      const hay = r.content.toLowerCase();
      let doc = docs.get(r.file_id);
      if (!doc) {
        doc = { file_id: r.file_id, file_name: r.file_name, knowledge_base_id: r.knowledge_id, keyword_counts: {}, distinct_keywords: 0, total_matches: 0, chunks: [] };
        docs.set(r.file_id, doc);
      }
      const snippets: string[] = [];
      keywords.forEach((k, i) => {
        const at = positions(hay, lowered[i]!);
        if (at.length === 0) return;
        doc.keyword_counts[k] = (doc.keyword_counts[k] ?? 0) + at.length;
        doc.total_matches += at.length;
        for (const p of at) {
          if (snippets.length >= SNIPPETS_PER_CHUNK) break;
          const from = Math.max(0, p - SNIPPET_RADIUS);
          const to = Math.min(r.content.length, p + k.length + SNIPPET_RADIUS);
          snippets.push(`${from > 0 ? "…" : ""}${r.content.slice(from, to)}${to < r.content.length ? "…" : ""}`);
        }
      });
      // ILIKE and lower-casing can disagree on rare characters; keep only what JS can show.
      if (snippets.length && doc.chunks.length < CHUNKS_PER_DOCUMENT) doc.chunks.push({ chunk_id: r.id, chunk_index: Number(r.ordinal), snippets });
    }
    const documents = [...docs.values()]
      .map((d) => ({ ...d, distinct_keywords: Object.keys(d.keyword_counts).length }))
      .filter((d) => d.total_matches > 0)
      .sort((a, b) => b.distinct_keywords - a.distinct_keywords || b.total_matches - a.total_matches || a.file_name.localeCompare(b.file_name))
      .slice(0, args.max_documents);
    if (documents.length) return { documents, truncated, reason: null };
    // Why nothing matched is only worth a statement when nothing did: a match comes from a ready
    // file (the statement joins only those), so the files' states are read here, not before.
    const reason = rows.length ? null : emptyReason(kbIds, await readyFileCounts(db, kbIds));
    return { documents, truncated, reason: reason ?? `No document contains ${quoteList(keywords, 3)}.` };
  },
  summarize(out) {
    const matches = out.documents.reduce((n, d) => n + d.total_matches, 0);
    return { count: out.documents.length, summary: `${matches} matches in ${out.documents.length} documents` };
  },
};
