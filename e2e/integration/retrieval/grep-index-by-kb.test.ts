import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, type SqlRunner } from "@/lib/db/migrate";
import { buildGrepIndex, filesAwaitingGrepIndex } from "@/lib/retrieval/grep-index";
import { grepStatement } from "@/lib/tools/grep-chunks";
import { migrationsUpTo, openMigrationRunner, rawSqlOver } from "../../support/migration-db";

// Migration 20261216000000: grep_chunks' trigram index keyed by knowledge base and text, on a
// database deployed before it (PGlite, or the PostgreSQL server of TEST_DATABASE_URL). The
// entries are rebuilt by the runner after start-up; until then the files are scanned. And the
// point of it: a grep of one knowledge base reads only that knowledge base's entries, however
// many chunks of other knowledge bases hold the keyword.
const BY_KB = "20261216000000_grep_index_by_kb";
const FOREIGN = 1500;

interface PlanNode {
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

function nodes(n: PlanNode): PlanNode[] {
  return [n, ...(n.Plans ?? []).flatMap(nodes)];
}

describe("migration: grep_chunks' trigram index keyed by knowledge base", () => {
  let db: SqlRunner;
  let close: () => Promise<void>;
  const dirs: string[] = [];
  // The writer's interface over the same connection.
  const raw = () => rawSqlOver(db);
  const grep = async (keyword: string, kbs: string[]) => {
    const { sql, params } = grepStatement([keyword], kbs, undefined);
    return (await db.query<{ id: string }>(sql, params)).map((r) => r.id);
  };

  beforeAll(async () => {
    ({ db, close } = await openMigrationRunner());
    const before = migrationsUpTo((n) => n < BY_KB);
    const all = migrationsUpTo(() => true);
    dirs.push(before, all);
    await applyMigrations(db, before);
    // Deployed before: a small KB and a large one whose chunks all hold "weather", every file's
    // entries in the former text-only index.
    await db.exec(`
      INSERT INTO users (id, email, name) VALUES ('u1', 'u1@x.test', 'U');
      INSERT INTO knowledges (id, owner_id, name) VALUES ('small', 'u1', 'Small'), ('big', 'u1', 'Big');
      INSERT INTO knowledge_files (id, knowledge_id, name, file_type, mime_type, size, sha256, storage_key, status, chunk_count, grep_indexed) VALUES
        ('fs', 'small', 'notes.txt', 'txt', 'text/plain', 10, 's', 'ks', 'success', 3, true),
        ('fb', 'big', 'reports.txt', 'txt', 'text/plain', 10, 'b', 'kb', 'success', ${FOREIGN}, true);
      INSERT INTO chunks (id, knowledge_id, file_id, ordinal, content) VALUES
        ('s1', 'small', 'fs', 0, 'The weather report for the harbour.'), ('s2', 'small', 'fs', 1, 'Ferry times change in winter.'), ('s3', 'small', 'fs', 2, 'Tide tables are posted weekly.');
      INSERT INTO chunks (id, knowledge_id, file_id, ordinal, content)
        SELECT 'b' || g, 'big', 'fb', g, 'Report ' || g || ': the committee reviewed the weather data again.' FROM generate_series(1, ${FOREIGN}) g;
      INSERT INTO chunk_grep (chunk_id) SELECT id FROM chunks; -- the former layout: no knowledge_id
    `);
    const applied = await applyMigrations(db, all);
    expect(applied[0]).toBe(BY_KB);
  });
  afterAll(async () => {
    await close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("empties the index and marks every file for the runner; grep scans the files meanwhile, with the same matches", async () => {
    const idx = await db.query<{ n: string }>(`SELECT indexname AS n FROM pg_indexes WHERE tablename = 'chunk_grep' ORDER BY 1`);
    expect(idx.map((r) => r.n)).toEqual(["chunk_grep_kb_text_idx", "chunk_grep_pkey"]);
    expect(await db.query(`SELECT * FROM chunk_grep`)).toEqual([]);
    expect(await filesAwaitingGrepIndex(raw())).toEqual(["fb", "fs"]);
    expect(await grep("WEATHER", ["small"])).toEqual(["s1"]);
    expect(await grep("tide tables", ["small", "big"])).toEqual(["s3"]);
  });

  it("after the runner's build, a small KB's grep reads only its own entries, not the other KB's matches", async () => {
    expect(await buildGrepIndex(raw(), "fs", { batchMs: 60 })).toEqual({ added: 3, indexed: true });
    expect(await buildGrepIndex(raw(), "fb", { batchMs: 60 })).toMatchObject({ added: FOREIGN, indexed: true });
    expect(await filesAwaitingGrepIndex(raw())).toEqual([]);
    expect(await grep("weather", ["small"])).toEqual(["s1"]);
    expect((await grep("weather", ["big"])).length).toBe(FOREIGN);
    expect((await grep("weather", ["small", "big"])).length).toBe(FOREIGN + 1);

    // The index is what answers (other plans off, as in tools.test.ts: at this size the planner
    // may prefer a scan), and its scan yields the small KB's candidates only: keyed by text alone,
    // it yielded every chunk of the instance holding the keyword's trigrams (1,501 here).
    await db.exec("SET enable_seqscan = off");
    await db.exec("SET enable_indexscan = off");
    try {
      const { sql, params } = grepStatement(["weather"], ["small"], undefined);
      const [row] = await db.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
      const planJson = row!["QUERY PLAN"];
      const plan = (typeof planJson === "string" ? JSON.parse(planJson) : planJson) as Array<{ Plan: PlanNode }>;
      const scans = nodes(plan[0]!.Plan).filter((n) => n["Relation Name"] === "chunk_grep" || n["Index Name"] === "chunk_grep_kb_text_idx");
      expect(scans.some((n) => n["Index Name"] === "chunk_grep_kb_text_idx")).toBe(true);
      const heap = scans.filter((n) => n["Relation Name"] === "chunk_grep");
      expect(heap.length).toBeGreaterThan(0);
      const read = heap.reduce((s, n) => s + (n["Actual Rows"] ?? 0) * (n["Actual Loops"] ?? 1) + (n["Rows Removed by Index Recheck"] ?? 0), 0);
      expect(read).toBeLessThanOrEqual(3);
    } finally {
      await db.exec("RESET enable_seqscan");
      await db.exec("RESET enable_indexscan");
    }
  });
});
