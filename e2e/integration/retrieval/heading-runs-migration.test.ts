import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, type SqlRunner } from "@/lib/db/migrate";
import { chunkPostings } from "@/lib/retrieval/chunk-postings";
import { backfillHeadingRuns } from "@/lib/retrieval/heading-runs-backfill";
import { pageRows, type PreparedChunk } from "@/lib/retrieval/index-writer";
import { lexicalSearch } from "@/lib/retrieval/lexical";
import { tokenize } from "@/lib/retrieval/text/tokenize";
import { migrationsUpTo, openMigrationRunner } from "../../support/migration-db";

// Migration 20261211000000 (section-shared heading evidence) on an index written before it, in the
// posting-pages layout of 20261206000000: its hits and scores stay what they were, the files whose
// heading spans two chunks are listed for the backfill, and once the backfill has computed their
// runs (from the chunks' heading paths, with the writer's tokenizer) the heading is shared. On
// PGlite, or on the PostgreSQL server of TEST_DATABASE_URL.
const HEADING_RUNS = "20261211000000_heading_term_runs";

const HEADING = "底特律圣公会三一堂";
const SENTENCES = ["底特律圣公会三一堂是一所教堂，位于底特律马丁路德金大道。", "圣公会三一堂的平面采用圣公会规定的十字模式。", "该堂会成立于1878年，未得到教区主教许可。"];
const OTHERS = ["上海博物馆成立于1950年。", "南京大学成立于1902年。", "广州塔位于市中心。"];

// The pages as the index writer wrote them before 20261212000000_posting_pages_ordinals (with
// each posting's chunk id, found here by its (file_id, ordinal), and three arrays: the writer's
// packed array, migration 20261213020000, cut in its thirds): the schema this test starts at.
const LEGACY_INSERT_PAGES_SQL = `INSERT INTO posting_pages (knowledge_id, file_id, term, first_tf, first_dl, inc, chunk_ids, tfs, doc_lens, ordinals)
  SELECT $1, $2, u.term, u.first_tf, u.first_dl, u.inc,
         (SELECT array_agg(c.id ORDER BY o.k) FROM unnest(a.p[2 * a.n + 1:3 * a.n]) WITH ORDINALITY AS o(ord, k) JOIN chunks c ON c.file_id = $2 AND c.ordinal = o.ord),
         a.p[1:a.n], a.p[a.n + 1:2 * a.n], a.p[2 * a.n + 1:3 * a.n]
  FROM unnest($3::text[], $4::int[], $5::int[], $6::int[], $7::text[]) AS u(term, first_tf, first_dl, inc, postings)
  CROSS JOIN LATERAL (SELECT u.postings::int[] AS p, cardinality(u.postings::int[]) / 3 AS n) a`;

describe("migration to section-shared heading evidence (on posting pages)", () => {
  let db: SqlRunner;
  let close: () => Promise<void>;
  let before: string;
  const raw = () => ({ $queryRawUnsafe: <T,>(sql: string, ...params: unknown[]) => db.query<T>(sql, params) as Promise<T> });
  const search = async (contextWeight?: number) =>
    (await lexicalSearch(raw(), { knowledgeIds: ["kb1"], tokens: tokenize(`${HEADING}哪一年成立？`), limit: 10, contextWeight })).hits.map((h) => [h.chunkId, h.score] as const);
  // The backfill's transactions on the raw client (BEGIN/COMMIT around the callback).
  const txRunner = {
    $transaction: async <T,>(fn: (tx: ReturnType<typeof raw> & { $executeRawUnsafe: (sql: string, ...p: unknown[]) => Promise<number> }) => Promise<T>) => {
      await db.exec("BEGIN");
      try {
        const r = await fn({ ...raw(), $executeRawUnsafe: async (sql: string, ...p: unknown[]) => (await db.query(sql, p)).length });
        await db.exec("COMMIT");
        return r;
      } catch (e) {
        await db.exec("ROLLBACK");
        throw e;
      }
    },
  };

  let old: (readonly [string, number])[];
  let oldNoContext: (readonly [string, number])[];
  beforeAll(async () => {
    ({ db, close } = await openMigrationRunner());
    before = migrationsUpTo((n) => n < HEADING_RUNS);
    await applyMigrations(db, before);
    await db.exec(`
      INSERT INTO users (id, email, name) VALUES ('u1', 'u1@x.test', 'U');
      INSERT INTO knowledges (id, owner_id, name) VALUES ('kb1', 'u1', 'KB');
      INSERT INTO knowledge_files (id, knowledge_id, name, file_type, mime_type, size, sha256, storage_key, status)
        VALUES ('f1', 'kb1', 'church.txt', 'txt', 'text/plain', 10, 'x', 'k', 'success'), ('f2', 'kb1', 'other.txt', 'txt', 'text/plain', 10, 'y', 'k2', 'success'),
               ('f3', 'kb1', 'one.txt', 'txt', 'text/plain', 10, 'z', 'k3', 'success');
    `);
    // The index as the writer before the migration left it: chunks and their posting pages.
    const files: [string, { id: string; content: string; headingPath: string }[]][] = [
      ["f1", SENTENCES.map((content, i) => ({ id: `c${i}`, content, headingPath: HEADING }))],
      ["f2", OTHERS.map((content, i) => ({ id: `o${i}`, content, headingPath: "" }))],
      // One chunk under a heading: no run possible, not listed.
      ["f3", [{ id: "s0", content: "杭州西湖成立于古代。", headingPath: "杭州西湖" }]],
    ];
    for (const [file, chunks] of files) {
      const prepared: PreparedChunk[] = chunks.map((c, ordinal) => {
        const input = { ordinal, content: c.content, pageStart: null, pageEnd: null, headingPath: c.headingPath };
        return { id: c.id, input, postings: chunkPostings(input), vector: null };
      });
      for (const p of prepared) {
        await db.query(`INSERT INTO chunks (id, knowledge_id, file_id, ordinal, content, heading_path, tokens, token_count) VALUES ($1, 'kb1', $2, $3, $4, $5, $6, $7)`, [
          p.id,
          file,
          p.input.ordinal,
          p.input.content,
          p.input.headingPath,
          p.postings.tokens,
          p.postings.tokenCount,
        ]);
      }
      const pages = pageRows(prepared);
      await db.query(LEGACY_INSERT_PAGES_SQL, ["kb1", file, pages.terms, pages.firstTf, pages.firstDl, pages.inc, pages.postings]);
    }
    old = await search();
    oldNoContext = await search(0);
    expect(await applyMigrations(db)).toContain(HEADING_RUNS);
  });
  afterAll(async () => {
    await close();
    rmSync(before, { recursive: true, force: true });
  });

  it("keeps every hit and score of an index written before it, with context on and off, and lists the files to backfill", async () => {
    expect(old.map((h) => h[0])).toContain("c2");
    for (const [was, now] of [
      [old, await search()],
      [oldNoContext, await search(0)],
    ] as const) {
      expect(now.map((h) => h[0])).toEqual(was.map((h) => h[0]));
      now.forEach((h, i) => expect(h[1]).toBeCloseTo(was[i]![1], 9));
    }
    // The sibling repeating the title's words still outranks the answer, as before.
    expect(old[0]![0]).toBe("c1");
    expect(await db.query(`SELECT file_id FROM heading_term_runs_pending ORDER BY 1`)).toEqual([{ file_id: "f1" }]);
    expect(await db.query(`SELECT count(*)::int AS n FROM heading_term_runs`)).toEqual([{ n: 0 }]);
  });

  it("the backfill writes the runs the index writer would have written and shares the heading's evidence", async () => {
    expect(await backfillHeadingRuns(txRunner)).toBe(1);
    const runs = await db.query<{ r: string }>(`SELECT term || ':' || first_ordinal || '-' || last_ordinal AS r FROM heading_term_runs WHERE file_id = 'f1' ORDER BY 1`);
    const expected = [...new Set(tokenize(HEADING))].map((t) => `${t}:0-2`).sort();
    expect(runs.map((x) => x.r).sort()).toEqual(expected);
    expect(await db.query(`SELECT count(*)::int AS n FROM heading_term_runs_pending`)).toEqual([{ n: 0 }]);
    // Nothing left to do: a second start does nothing.
    expect(await backfillHeadingRuns(txRunner)).toBe(0);
    expect((await search())[0]![0]).toBe("c2");
    // A file's runs go with it.
    await db.query(`DELETE FROM knowledge_files WHERE id = 'f1'`);
    expect(await db.query(`SELECT count(*)::int AS n FROM heading_term_runs`)).toEqual([{ n: 0 }]);
  });
});
