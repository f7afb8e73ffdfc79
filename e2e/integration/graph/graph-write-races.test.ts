import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFileGraph } from "@/lib/graph/build";
import { writeFileGraph } from "@/lib/graph/store";
import { reparseKnowledgeFile } from "@/lib/ingestion/runner";
import { sampleDir } from "@/lib/ingestion/sample";
import { openTestEnv, type TestEnv } from "../ingestion/helpers";
import { graphOf } from "./support/graph-rows";

// The graph's rows have no foreign keys since migration 20261207010000: the writer itself makes
// sure it never writes rows for chunks that are gone (lib/graph/store.ts). A graph built from
// chunks that a reparse replaced meanwhile writes nothing, and leaves the new chunks' graph as
// it is; on PostgreSQL, a chunk deleted by a transaction still open makes the write wait for it.

const MD = "admin-guide.md";

async function orphans(t: TestEnv): Promise<number> {
  const [r] = await t.db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM graph_mentions m WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = m.chunk_id)`);
  return r!.n;
}

describe("graph writes racing chunk replacement", () => {
  let t: TestEnv;
  beforeAll(async () => {
    t = await openTestEnv();
  });
  afterAll(async () => t?.close());

  async function indexedFile() {
    const kb = await t.newKb("races");
    await t.upload(kb, [{ name: MD, data: readFileSync(path.join(sampleDir(), MD)) }]);
    await t.runJobs();
    const file = await t.db.knowledgeFile.findFirstOrThrow({ where: { knowledgeId: kb } });
    expect(file.graphStatus).toBe("success");
    const chunks = await t.db.chunk.findMany({ where: { fileId: file.id }, orderBy: { ordinal: "asc" }, select: { id: true, content: true } });
    return { kb, fileId: file.id, graph: buildFileGraph(chunks) };
  }

  it("a graph of chunks a reparse replaced writes nothing and keeps the new chunks' graph", async () => {
    const { kb, fileId, graph: stale } = await indexedFile();
    await reparseKnowledgeFile(t.db, { knowledgeId: kb, fileId });
    await t.runJobs();
    const current = await graphOf(t, kb);
    expect(current.length).toBeGreaterThan(10);

    expect(await writeFileGraph(t.db, { knowledgeId: kb, fileId, graph: stale })).toBeNull();
    expect(await graphOf(t, kb)).toEqual(current);
    expect(await orphans(t)).toBe(0);
  });

  it.runIf(process.env.TEST_DATABASE_URL)("waits for a transaction deleting one of its chunks, then writes nothing (PostgreSQL)", async () => {
    const { kb, fileId, graph } = await indexedFile();
    const before = await graphOf(t, kb);
    const gone = await t.db.chunk.findUniqueOrThrow({ where: { id: graph.chunkIds[1]! }, select: { id: true, ordinal: true } });
    const other = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await other.connect();
    try {
      await other.query("BEGIN");
      await other.query(`DELETE FROM chunks WHERE id = $1`, [gone.id]);
      let settled = false;
      const write = writeFileGraph(t.db, { knowledgeId: kb, fileId, graph }).finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 500));
      expect(settled).toBe(false); // held by the chunk's row lock, as a foreign-key check was
      await other.query("COMMIT");
      expect(await write).toBeNull();
    } finally {
      await other.end();
    }
    expect(await orphans(t)).toBe(0);
    // What the deleted chunk held went with it (its trigger); the rest of the graph is untouched.
    const held = before.filter((k) => k.includes(`@${gone.ordinal}x`));
    expect(held.length).toBeGreaterThan(0);
    expect(await graphOf(t, kb)).toEqual(before.filter((k) => !held.includes(k)));
  });
});
