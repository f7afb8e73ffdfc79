import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, type SqlRunner } from "@/lib/db/migrate";
import { buildGrepIndex, filesAwaitingGrepIndex } from "@/lib/retrieval/grep-index";
import { grepStatement } from "@/lib/tools/grep-chunks";
import { migrationsUpTo, openMigrationRunner, rawSqlOver } from "../../support/migration-db";

// Migration 20261214000000 (grep_chunks' trigram index built after a file is ready) on a database
// deployed before it, on PGlite or on the PostgreSQL server of TEST_DATABASE_URL: the old index on
// chunks is gone, nothing is backfilled at start-up, the files already indexed are matched by
// scanning their chunks until the runner has built their entries (lib/retrieval/grep-index.ts).
const GREP_AFTER_READY = "20261214000000_grep_index_after_ready";

describe("migration: grep_chunks' trigram index built after a file is ready", () => {
  let db: SqlRunner;
  let close: () => Promise<void>;
  const dirs: string[] = [];
  // The writer's interface over the same connection.
  const raw = () => rawSqlOver(db);
  const grep = async (keyword: string) => {
    const { sql, params } = grepStatement([keyword], ["kb1"], undefined);
    return (await db.query<{ id: string }>(sql, params)).map((r) => r.id);
  };

  beforeAll(async () => {
    ({ db, close } = await openMigrationRunner());
    const before = migrationsUpTo((n) => n < GREP_AFTER_READY);
    // Every migration from there on: grep_chunks' statement is today's (its index is keyed by
    // knowledge base since 20261216000000, grep-index-by-kb.test.ts).
    const through = migrationsUpTo(() => true);
    dirs.push(before, through);
    await applyMigrations(db, before);
    await db.exec(`
      INSERT INTO users (id, email, name) VALUES ('u1', 'u1@x.test', 'U');
      INSERT INTO knowledges (id, owner_id, name) VALUES ('kb1', 'u1', 'KB');
      INSERT INTO knowledge_files (id, knowledge_id, name, file_type, mime_type, size, sha256, storage_key, status, chunk_count)
        VALUES ('f1', 'kb1', 'a.txt', 'txt', 'text/plain', 10, 'x', 'k', 'success', 3);
      INSERT INTO chunks (id, knowledge_id, file_id, ordinal, content) VALUES
        ('c1', 'kb1', 'f1', 0, 'The warranty lasts two years.'), ('c2', 'kb1', 'f1', 1, 'Keep the receipt.'), ('c3', 'kb1', 'f1', 2, 'Arbitration in Singapore.');
    `);
    expect((await applyMigrations(db, through))[0]).toBe(GREP_AFTER_READY);
  });
  afterAll(async () => {
    await close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("drops the index on chunks; the files already indexed wait for their entries and are scanned meanwhile", async () => {
    const idx = await db.query<{ n: string }>(`SELECT indexname AS n FROM pg_indexes WHERE tablename IN ('chunks', 'chunk_grep') ORDER BY 1`);
    expect(idx.map((r) => r.n)).not.toContain("chunks_content_trgm_idx");
    expect(idx.map((r) => r.n)).toContain("chunk_grep_kb_text_idx");
    expect(await db.query(`SELECT * FROM chunk_grep`)).toEqual([]);
    expect(await filesAwaitingGrepIndex(raw())).toEqual(["f1"]);
    expect(await filesAwaitingGrepIndex(raw(), "f1")).toEqual([]); // paged by id
    expect(await grep("WARRANTY")).toEqual(["c1"]);
    expect(await grep("singapore")).toEqual(["c3"]);
  });

  it("the runner's build fills the index and marks the file; the same matches come from the index", async () => {
    expect(await buildGrepIndex(raw(), "f1", { batchMs: 60 })).toEqual({ added: 3, indexed: true });
    expect(await filesAwaitingGrepIndex(raw())).toEqual([]);
    expect(await db.query<{ grep_indexed: boolean }>(`SELECT grep_indexed FROM knowledge_files WHERE id = 'f1'`)).toEqual([{ grep_indexed: true }]);
    expect(await grep("WARRANTY")).toEqual(["c1"]);
    expect(await grep("singapore")).toEqual(["c3"]);
    expect(await grep("no such words")).toEqual([]);
    // Again: nothing to add, the file stays marked.
    expect(await buildGrepIndex(raw(), "f1", { batchMs: 60 })).toEqual({ added: 0, indexed: false });
    // Deleting a chunk takes its entry (the trigger), and the file's other entries stay.
    await db.exec(`DELETE FROM chunks WHERE id = 'c3'`);
    expect((await db.query<{ chunk_id: string }>(`SELECT chunk_id FROM chunk_grep ORDER BY 1`)).map((r) => r.chunk_id)).toEqual(["c1", "c2"]);
    expect(await grep("singapore")).toEqual([]);
  });
});
