import { readdirSync, rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, migrationsDir, type SqlRunner } from "@/lib/db/migrate";
import { chunkPostings } from "@/lib/retrieval/chunk-postings";
import { INSERT_PAGES_SQL, pageRows, POSTING_ROWS_SQL, type PreparedChunk } from "@/lib/retrieval/index-writer";
import { lexicalSearch, type LexicalQuery, type LexicalResult } from "@/lib/retrieval/lexical";
import { migrationsUpTo, openMigrationRunner } from "../../support/migration-db";
import { pageViolations } from "../../support/postings";

// Migration 20261206000000 (postings in pages) carries postings written in the former layout (one
// chunk_terms row per chunk and term) and rewrites retrieval_lexical_search on the pages. The same
// searches — common terms cut at small caps so the page walk decides which postings are read, ties
// everywhere (short chunks of a small vocabulary), file filters, a file not in 'success', two KBs,
// context on and off, BM25+ δ — must return the same hits in the same order with the same scores,
// document frequencies and postings-read counts, before the migration (old function, old table),
// after it (pages made by the migration) and after the index writer's pages replace them (other
// batch boundaries). On PGlite, or on the PostgreSQL server of TEST_DATABASE_URL.
const PAGES = "20261206000000_posting_pages";

function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

// A small vocabulary with Zipf-like weights: a few words in most chunks, most words rare.
const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu".split(" ");
const TERMS = WORDS.map((w) => chunkPostings({ ordinal: 0, content: w, pageStart: null, pageEnd: null, headingPath: "" }).terms[0]!);

interface Doc {
  kb: string;
  file: string;
  status: string;
  chunks: { id: string; ordinal: number; content: string }[];
}

function corpus(): Doc[] {
  const rnd = rng(11);
  const word = () => WORDS[Math.min(WORDS.length - 1, Math.floor(Math.pow(rnd(), 2.2) * WORDS.length))]!;
  const files: Array<[string, string, string, number]> = [
    ["kb1", "f1", "success", 300],
    ["kb1", "f2", "success", 120],
    ["kb1", "f3", "parsing", 60],
    ["kb1", "f4", "success", 1],
    ["kb2", "f5", "success", 90],
  ];
  // KB 3: one chunk per file (as SciFact's abstracts), three words each: a common term's pages
  // are one posting each, most of them at the same level — the page walk's ties.
  for (let f = 0; f < 40; f++) files.push(["kb3", `g${String((f * 17) % 40).padStart(2, "0")}`, "success", 1]); // written out of id order
  return files.map(([kb, file, status, n]) => ({
    kb,
    file,
    status,
    chunks: Array.from({ length: n }, (_, i) => ({
      id: `${file}-c${String(i).padStart(3, "0")}${rnd() < 0.5 ? "a" : "B"}`,
      ordinal: i,
      content: Array.from({ length: kb === "kb3" ? 3 : 2 + Math.floor(rnd() * 9) }, kb === "kb3" ? () => WORDS[Math.floor(rnd() * 6)]! : word).join(" "),
    })),
  }));
}

function queries(): LexicalQuery[] {
  const rnd = rng(5);
  const out: LexicalQuery[] = [];
  for (let i = 0; i < 100; i++) {
    const tokens = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => TERMS[Math.floor(Math.pow(rnd(), 1.5) * (i >= 80 ? 6 : TERMS.length))]!);
    if (rnd() < 0.2) tokens.push(tokens[0]!);
    out.push({
      knowledgeIds: i >= 80 ? ["kb3"] : i % 7 === 3 ? ["kb1", "kb2"] : [i % 5 === 4 ? "kb2" : "kb1"],
      fileIds: i % 9 === 2 ? ["f1", "f4"] : null,
      tokens,
      limit: [1, 3, 10, 25][i % 4]!,
      postingsCap: [2, 5, 17, 1000][Math.floor(i / 4) % 4]!,
      contextWeight: i % 6 === 5 ? 0 : undefined,
      delta: i % 8 === 7 ? 0.25 : undefined,
      fileStatus: i % 11 === 10 ? null : undefined,
    });
  }
  return out;
}

describe("migration to postings in pages", () => {
  let db: SqlRunner;
  let close: () => Promise<void>;
  let before: string;
  const docs = corpus();
  const qs = queries();
  const raw = () => ({ $queryRawUnsafe: <T,>(sql: string, ...params: unknown[]) => db.query(sql, params) as Promise<T> });
  const searchAll = () => Promise.all(qs.map((q) => lexicalSearch(raw(), q)));
  let old: LexicalResult[];
  let tieOrders = 0;
  let oldDf: unknown[];

  const expectSame = (got: LexicalResult[]) => {
    expect(got.length).toBe(old.length);
    got.forEach((r, i) => {
      const o = old[i]!;
      const label = `query ${i}: ${JSON.stringify(qs[i])}`;
      // Same scores position by position; same chunks, except that chunks whose scores are
      // equal (the same term statistics) may come in another order, or, at the end of the list,
      // another of them: the former statement summed a candidate's capped terms in join order, so
      // two such chunks could differ in the last bit, which then decided their order.
      expect(r.hits.length, label).toBe(o.hits.length);
      const tied = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));
      const groups = (hits: LexicalResult["hits"]) => {
        const out: { score: number; ids: string[]; last: boolean }[] = [];
        for (const h of hits) {
          const g = out.at(-1);
          if (g && tied(g.score, h.score)) g.ids.push(h.chunkId);
          else out.push({ score: h.score, ids: [h.chunkId], last: false });
        }
        if (out.length) out.at(-1)!.last = true;
        return out;
      };
      const [gn, go] = [groups(r.hits), groups(o.hits)];
      expect(gn.map((g) => g.ids.length), label).toEqual(go.map((g) => g.ids.length));
      gn.forEach((g, k) => {
        expect(g.score, label).toBeCloseTo(go[k]!.score, 9);
        if (!g.last || r.hits.length < qs[i]!.limit) expect([...g.ids].sort(), label).toEqual([...go[k]!.ids].sort());
        if (g.ids.join() !== go[k]!.ids.join()) tieOrders++;
      });
      const byId = new Map(o.hits.map((h) => [h.chunkId, h]));
      for (const h of r.hits) {
        const was = byId.get(h.chunkId);
        if (!was) continue;
        expect(h.score, label).toBeCloseTo(was.score, 9);
        expect(h.matchedTerms, label).toBe(was.matchedTerms);
        expect(h.chunk, label).toEqual(was.chunk);
      }
      expect(r.terms, label).toEqual(o.terms);
      expect([r.n, r.avgdl], label).toEqual([o.n, o.avgdl]);
      expect(r.postingsRead, label).toEqual(o.postingsRead);
    });
  };
  const dfs = () => db.query(`SELECT knowledge_id, term, df::int AS df FROM retrieval_term_stats ORDER BY 1, 2`);
  const recount = () => db.query(`SELECT knowledge_id, term, count(*)::int AS df FROM ${POSTING_ROWS_SQL} t GROUP BY 1, 2 ORDER BY 1, 2`);

  beforeAll(async () => {
    ({ db, close } = await openMigrationRunner());
    before = migrationsUpTo((n) => n < PAGES);
    await applyMigrations(db, before);
    await db.exec(`INSERT INTO users (id, email, name) VALUES ('u1', 'u1@x.test', 'U');
      INSERT INTO knowledges (id, owner_id, name) VALUES ('kb1', 'u1', 'KB 1'), ('kb2', 'u1', 'KB 2'), ('kb3', 'u1', 'KB 3');`);
    // Written as the former index writer did: chunks with their tokens, then one chunk_terms row
    // per (chunk, term) with the chunk's token count.
    for (const d of docs) {
      await db.query(
        `INSERT INTO knowledge_files (id, knowledge_id, name, file_type, mime_type, size, sha256, storage_key, status) VALUES ($1, $2, $1, 'txt', 'text/plain', 1, $1, $1, $3)`,
        [d.file, d.kb, d.status],
      );
      const posts = d.chunks.map((c) => chunkPostings({ ordinal: c.ordinal, content: c.content, pageStart: null, pageEnd: null, headingPath: "" }));
      await db.query(
        `INSERT INTO chunks (id, knowledge_id, file_id, ordinal, content, tokens, token_count)
         SELECT u.id, $1, $2, u.ordinal, u.content, u.tokens, u.token_count FROM unnest($3::text[], $4::int[], $5::text[], $6::text[], $7::int[]) AS u(id, ordinal, content, tokens, token_count)`,
        [d.kb, d.file, d.chunks.map((c) => c.id), d.chunks.map((c) => c.ordinal), d.chunks.map((c) => c.content), posts.map((p) => p.tokens), posts.map((p) => p.tokenCount)],
      );
      const rows = d.chunks.flatMap((c, i) => posts[i]!.terms.map((t, k) => [c.id, t, posts[i]!.tfs[k]!, posts[i]!.tokenCount] as const));
      await db.query(
        `INSERT INTO chunk_terms (chunk_id, knowledge_id, file_id, term, tf, doc_len)
         SELECT u.chunk_id, $1, $2, u.term, u.tf, u.doc_len FROM unnest($3::text[], $4::text[], $5::int[], $6::int[]) AS u(chunk_id, term, tf, doc_len)`,
        [d.kb, d.file, rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3])],
      );
    }
    old = await searchAll();
    oldDf = await dfs();
    // This migration first, then every later one (a migration timestamped after it, landed from
    // another branch, runs on the same carried-over data).
    const later = readdirSync(migrationsDir()).filter((n) => /^\d/.test(n) && n >= PAGES).sort();
    expect(later[0]).toBe(PAGES);
    expect(await applyMigrations(db)).toEqual(later);
  });
  afterAll(async () => {
    await close();
    rmSync(before, { recursive: true, force: true });
  });

  it("the searches exercise what the pages change (capped terms read by level, ties, filters)", () => {
    expect(old.filter((r) => r.postingsRead.capped > 0).length).toBeGreaterThan(20);
    expect(old.filter((r) => r.postingsRead.uncapped > 0).length).toBeGreaterThan(15);
    expect(old.filter((r) => r.hits.length > 1 && r.hits.some((h, i) => i > 0 && h.score === r.hits[i - 1]!.score)).length).toBeGreaterThan(5);
  });

  it("keeps every posting and document frequency, in valid pages", async () => {
    expect(await dfs()).toEqual(oldDf);
    expect(await recount()).toEqual(oldDf);
    for (const kb of ["kb1", "kb2", "kb3"]) expect(await pageViolations(raw(), kb)).toEqual([]);
    // Pages, not one row per posting: the common terms of a 300-chunk file fit in a few rows each.
    const [n] = await db.query<{ pages: number; postings: number }>(
      `SELECT count(*)::int AS pages, sum(posting_count(postings))::int AS postings FROM posting_pages WHERE file_id = 'f1'`,
    );
    expect(n!.pages * 4).toBeLessThan(n!.postings);
  });

  it("returns the same hits, scores and counts as the former layout", async () => {
    expectSame(await searchAll());
    // Such reorders are rare (one group in 100 searches here).
    expect(tieOrders).toBeLessThanOrEqual(qs.length / 20);
  });

  it("returns them too on pages cut at the index writer's batch boundaries", async () => {
    const rnd = rng(3);
    for (const d of docs) {
      await db.query(`DELETE FROM posting_pages WHERE file_id = $1`, [d.file]);
      for (let start = 0; start < d.chunks.length; ) {
        const size = 1 + Math.floor(rnd() * 70);
        const prepared: PreparedChunk[] = d.chunks.slice(start, start + size).map((c) => {
          const input = { ordinal: c.ordinal, content: c.content, pageStart: null, pageEnd: null, headingPath: "" };
          return { id: c.id, input, postings: chunkPostings(input), vector: null };
        });
        const p = pageRows(prepared);
        await db.query(INSERT_PAGES_SQL, [d.kb, d.file, p.terms, p.firstTf, p.firstDl, p.inc, p.postings]);
        start += size;
      }
    }
    expect(await dfs()).toEqual(oldDf);
    for (const kb of ["kb1", "kb2", "kb3"]) expect(await pageViolations(raw(), kb)).toEqual([]);
    expectSame(await searchAll());
  });

  it("deleting chunks — a few of a file, a whole file, a knowledge base — leaves no posting of them and exact dfs", async () => {
    await db.query(`DELETE FROM chunks WHERE file_id = 'f1' AND ordinal % 3 = 0`);
    expect(await db.query(`SELECT count(*)::int AS n FROM ${POSTING_ROWS_SQL} t LEFT JOIN chunks c ON c.id = t.chunk_id WHERE c.id IS NULL`)).toEqual([{ n: 0 }]);
    const [kept] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${POSTING_ROWS_SQL} t WHERE t.file_id = 'f1'`);
    expect(kept!.n).toBeGreaterThan(0);
    expect(await dfs()).toEqual(await recount());
    expect(await pageViolations(raw(), "kb1")).toEqual([]);
    await db.query(`DELETE FROM knowledge_files WHERE id = 'f2'`);
    expect(await db.query(`SELECT count(*)::int AS n FROM posting_pages WHERE file_id = 'f2'`)).toEqual([{ n: 0 }]);
    expect(await dfs()).toEqual(await recount());
    await db.query(`DELETE FROM knowledges WHERE id = 'kb1'`);
    expect(await db.query(`SELECT count(*)::int AS n FROM posting_pages WHERE knowledge_id = 'kb1'`)).toEqual([{ n: 0 }]);
    expect(await db.query(`SELECT count(*)::int AS n FROM retrieval_term_stats WHERE knowledge_id = 'kb1'`)).toEqual([{ n: 0 }]);
    expect(await dfs()).toEqual(await recount());
  });
});
