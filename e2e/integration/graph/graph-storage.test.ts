// Issue 22 item 3: the knowledge graph's mention rows stay proportional to what they record. The
// primary key (entity_id, chunk_id) was as large as the rows themselves (12.2 MB beside 12.6 MB
// after bench:ingest's corpus); since migration 20261213000000 mentions are indexed by entity
// and by chunk with non-unique B-trees, which PostgreSQL stores deduplicated. On this fixed
// workload (16,000 mention rows: 2,000 chunks naming 8 of 3,000 entities each, drawn with a
// Zipf-like skew) the two indexes took 90 bytes a row with the primary key and 31 without
// (measured with this test on both schemas); the bound sits between them. Embedded PGlite only:
// index sizes are per database, and a shared PostgreSQL test database holds other tests' rows.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/client";

function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

describe.skipIf(!!process.env.TEST_DATABASE_URL)("graph mention storage", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ka-graph-storage-"));
  const handleP = openDatabase({ dataDir: dir });
  afterAll(async () => {
    await (await handleP).close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the mention rows' indexes take at most 60 bytes a row", async () => {
    const db = (await handleP).prisma;
    const rnd = rng(7);
    const entityIds: number[] = [];
    const chunkIds: string[] = [];
    for (let c = 0; c < 2_000; c++) {
      // 25-character ids, like the chunks' own.
      const chunk = `c${c.toString(36).padStart(6, "0")}${"x".repeat(18)}`;
      const seen = new Set<number>();
      while (seen.size < 8) seen.add(1 + Math.floor(Math.pow(rnd(), 2) * 3_000));
      for (const e of seen) {
        entityIds.push(e);
        chunkIds.push(chunk);
      }
    }
    await db.$executeRawUnsafe(
      `INSERT INTO graph_mentions (entity_id, chunk_id, start, "end", count) SELECT e, c, 0, 10, 1 FROM unnest($1::bigint[], $2::text[]) AS u(e, c)`,
      entityIds,
      chunkIds,
    );
    const [m] = await db.$queryRawUnsafe<{ rows: number; idx: number }[]>(
      `SELECT (SELECT count(*) FROM graph_mentions)::int AS rows, pg_indexes_size('graph_mentions')::float8 AS idx`,
    );
    expect(m!.rows).toBe(16_000);
    expect(m!.idx / m!.rows, `graph_mentions indexes ${(m!.idx / 1e6).toFixed(2)} MB for ${m!.rows} rows`).toBeLessThanOrEqual(60);
  }, 120_000);
});
