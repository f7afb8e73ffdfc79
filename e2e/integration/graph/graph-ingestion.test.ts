import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFileGraph } from "@/lib/graph/build";
import { queryKnowledgeGraph, searchEntities } from "@/lib/graph/query";
import { recoverInterruptedGraphs } from "@/lib/graph/stage";
import { updateGraphSettings, waitForRebuild } from "@/lib/graph/settings";
import { deleteKnowledgeFile, reparseKnowledgeFile } from "@/lib/ingestion/runner";
import { sampleDir } from "@/lib/ingestion/sample";
import { openTestEnv, type TestEnv } from "../ingestion/helpers";

// The graph stage in the real job runner on a real database (PGlite, or TEST_DATABASE_URL):
// the sample KB's graph, a graph failure isolated to its stage, and exactness of reparse,
// delete and the KB setting (compared with a KB built from the remaining files only).

const sample = (name: string) => ({ name, data: readFileSync(path.join(sampleDir(), name)) });
const PDF = "云笺产品手册.pdf";
const MD = "admin-guide.md";
const DOCX = "2025Q2运营报告.docx";

/** Everything the graph holds for a KB, by name (ids differ between KBs). */
async function snapshot(t: TestEnv, kbId: string) {
  const entities = await t.db.$queryRawUnsafe<{ k: string }[]>(
    `SELECT norm_name || '|' || type || '|' || mention_count AS k FROM graph_entities WHERE knowledge_id = $1 ORDER BY 1`,
    kbId,
  );
  const relations = await t.db.$queryRawUnsafe<{ k: string }[]>(
    `SELECT s.norm_name || '|' || t.norm_name || '|' || r.relation || '|' || r.support_count AS k
       FROM graph_relations r JOIN graph_entities s ON s.id = r.source_id JOIN graph_entities t ON t.id = r.target_id
      WHERE r.knowledge_id = $1 ORDER BY 1`,
    kbId,
  );
  return { entities: entities.map((r) => r.k), relations: relations.map((r) => r.k) };
}

/** A relation's supports: the [start, end, count] entries the mention rows of its ends hold for it (migration 20261207010000). */
const SUPPORTS = `(SELECT m.entity_id, m.chunk_id, x.rid AS relation_id, m.relation_spans[3 * x.i] AS count
                     FROM graph_mentions m CROSS JOIN LATERAL unnest(m.relation_ids) WITH ORDINALITY AS x(rid, i))`;

/**
 * No entity without a mention, no relation without a support, counts equal to their rows, each
 * support held by a mention of one of the relation's ends, no row pointing at a chunk, entity or
 * relation that is gone (there are no foreign keys: triggers keep this), one mention row per
 * (entity, chunk) (there is no primary key since migration 20261213000000: the writer keeps this).
 */
async function expectConsistent(t: TestEnv) {
  const bad = await t.db.$queryRawUnsafe<{ n: number }[]>(`
    SELECT (SELECT count(*) FROM graph_entities e WHERE e.mention_count <> (SELECT coalesce(sum(count), 0) FROM graph_mentions m WHERE m.entity_id = e.id))
         + (SELECT count(*) FROM graph_entities e WHERE NOT EXISTS (SELECT 1 FROM graph_mentions m WHERE m.entity_id = e.id))
         + (SELECT count(*) FROM graph_relations r WHERE r.support_count <> (SELECT coalesce(sum(count), 0) FROM ${SUPPORTS} s WHERE s.relation_id = r.id))
         + (SELECT count(*) FROM graph_relations r WHERE NOT EXISTS (SELECT 1 FROM ${SUPPORTS} s WHERE s.relation_id = r.id))
         + (SELECT count(*) FROM ${SUPPORTS} s LEFT JOIN graph_relations r ON r.id = s.relation_id WHERE r.id IS NULL OR s.entity_id NOT IN (r.source_id, r.target_id))
         + (SELECT count(*) FROM graph_mentions m WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = m.chunk_id) OR NOT EXISTS (SELECT 1 FROM graph_entities e WHERE e.id = m.entity_id))
         + (SELECT count(*) FROM graph_relations r WHERE NOT EXISTS (SELECT 1 FROM graph_entities e WHERE e.id = r.source_id) OR NOT EXISTS (SELECT 1 FROM graph_entities e WHERE e.id = r.target_id))
         + (SELECT count(*) FROM graph_entities e WHERE NOT EXISTS (SELECT 1 FROM knowledges k WHERE k.id = e.knowledge_id))
         + (SELECT count(*) FROM (SELECT 1 FROM graph_mentions GROUP BY entity_id, chunk_id HAVING count(*) > 1) d)
         + (SELECT count(*) FROM graph_mentions m JOIN chunks c ON c.id = m.chunk_id JOIN graph_entities e ON e.id = m.entity_id WHERE c.knowledge_id <> e.knowledge_id) AS n`);
  expect(Number(bad[0]!.n)).toBe(0);
}

describe("knowledge graph stage", () => {
  let t: TestEnv;
  let kb: string;
  beforeAll(async () => {
    t = await openTestEnv();
    kb = await t.newKb("sample");
    await t.upload(kb, [sample(PDF), sample(MD), sample(DOCX)]);
    await t.runJobs();
  });
  afterAll(async () => t?.close());

  it("builds every indexed file's graph; the product's strongest neighbours are what the handbook says about it", async () => {
    const files = await t.db.knowledgeFile.findMany({ where: { knowledgeId: kb } });
    expect(files.map((f) => [f.status, f.graphStatus, f.graphPercent])).toEqual(files.map(() => ["success", "success", 100]));
    await expectConsistent(t);

    const found = await searchEntities(t.db, { knowledgeIds: [kb], query: "云笺", limit: 5 });
    expect(found[0]).toMatchObject({ name: "云笺", type: "product" });
    const res = await queryKnowledgeGraph(t.db, { knowledgeIds: [kb], query: "云笺", depth: 1, maxEntities: 1, maxRelations: 10, passagesPerRelation: 1 });
    const yunjian = res.entities[0]!;
    const neighbours = yunjian.relations.map((r) => (r.source_id === yunjian.id ? r.target_name : r.source_name));
    // The handbook: private deployment for large organizations, and the South-East Asian markets.
    expect(neighbours[0]).toBe("私有化部署");
    expect(neighbours).toEqual(expect.arrayContaining(["东南亚", "新加坡", "马来西亚", "越南"]));
    const weights = yunjian.relations.map((r) => r.weight);
    expect(weights).toEqual([...weights].sort((a, b) => b - a));
    // Each relation cites its sentence: file, page, quote naming both ends.
    const deploy = yunjian.relations[0]!;
    expect(deploy.passages[0]).toMatchObject({ file_name: PDF, page_start: expect.any(Number) });
    expect(deploy.passages[0]!.quote).toContain("私有化部署");
    expect(deploy.passages[0]!.quote).toContain("云笺");
    // Fuzzy: the English name and a phrase find entities too.
    expect((await searchEntities(t.db, { knowledgeIds: [kb], query: "yunjian", limit: 3 }))[0]?.name).toBe("Yunjian");
    expect((await searchEntities(t.db, { knowledgeIds: [kb], query: "云笺在东南亚", limit: 5 })).map((e) => e.name)).toEqual(expect.arrayContaining(["云笺", "东南亚"]));
  });

  it("reparse leaves exactly the same graph", async () => {
    const before = await snapshot(t, kb);
    const pdf = await t.db.knowledgeFile.findFirstOrThrow({ where: { knowledgeId: kb, name: PDF } });
    await reparseKnowledgeFile(t.db, { knowledgeId: kb, fileId: pdf.id });
    await t.runJobs();
    expect(await snapshot(t, kb)).toEqual(before);
    await expectConsistent(t);
  });

  it("turning the graph off removes it; on again rebuilds the same graph", async () => {
    const before = await snapshot(t, kb);
    await updateGraphSettings(t.db, kb, { enabled: false });
    expect(await t.db.graphEntity.count({ where: { knowledgeId: kb } })).toBe(0);
    const mentions = await t.db.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM graph_mentions m JOIN chunks c ON c.id = m.chunk_id WHERE c.knowledge_id = $1`,
      kb,
    );
    expect(mentions[0]?.n).toBe(0);
    expect(await t.db.graphRelation.count({ where: { knowledgeId: kb } })).toBe(0);
    expect((await t.db.knowledgeFile.findMany({ where: { knowledgeId: kb } })).map((f) => f.graphStatus)).toEqual(["skipped", "skipped", "skipped"]);
    // An upload while it is off is indexed without a graph.
    await t.upload(kb, [{ name: "notes.txt", data: "云笺的管理员在新加坡。" }]);
    await t.runJobs();
    expect(await t.db.knowledgeFile.findFirstOrThrow({ where: { knowledgeId: kb, name: "notes.txt" } })).toMatchObject({ status: "success", graphStatus: "skipped" });
    expect(await t.db.graphEntity.count({ where: { knowledgeId: kb } })).toBe(0);
    await t.db.knowledgeFile.deleteMany({ where: { knowledgeId: kb, name: "notes.txt" } });

    await updateGraphSettings(t.db, kb, { enabled: true });
    await waitForRebuild(kb);
    expect(await snapshot(t, kb)).toEqual(before);
  });

  it("deleting a file leaves exactly the graph of the remaining files", async () => {
    const docx = await t.db.knowledgeFile.findFirstOrThrow({ where: { knowledgeId: kb, name: DOCX } });
    await deleteKnowledgeFile(t.db, { knowledgeId: kb, fileId: docx.id, dataDir: t.dataDir });
    await expectConsistent(t);
    const reference = await t.newKb("without the report");
    await t.upload(reference, [sample(PDF), sample(MD)]);
    await t.runJobs();
    const left = await snapshot(t, kb);
    expect(left.entities.length).toBeGreaterThan(10);
    expect(left).toEqual(await snapshot(t, reference));
  });

  it("a large file's graph, written in several transactions, has exact counts; a stop mid-write leaves no partial graph", async () => {
    // The admin guide 160 times over: thousands of mention rows, so several write groups.
    const guide = readFileSync(path.join(sampleDir(), MD), "utf8");
    const big = await t.newKb("large graph");
    await t.upload(big, [{ name: "big-guide.md", data: Array.from({ length: 160 }, (_, i) => `# Copy ${i}\n\n${guide}`).join("\n\n") }]);
    await t.runJobs();
    const f = await t.db.knowledgeFile.findFirstOrThrow({ where: { knowledgeId: big } });
    expect([f.status, f.graphStatus]).toEqual(["success", "success"]);
    const [{ n: mentionRows }] = await t.db.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM graph_mentions m JOIN chunks c ON c.id = m.chunk_id WHERE c.file_id = $1`,
      f.id,
    ) as [{ n: number }];
    expect(mentionRows).toBeGreaterThan(3 * 2_000);
    await expectConsistent(t);
    // Each entity's count is what the extractor found in the file, summed over all groups.
    const chunks = await t.db.chunk.findMany({ where: { fileId: f.id }, orderBy: { ordinal: "asc" }, select: { id: true, content: true } });
    const built = buildFileGraph(chunks);
    const expected = new Map<string, number>();
    const kept = new Set(built.entities.map((e) => e.norm));
    for (const m of built.mentions) if (kept.has(m.norm)) expected.set(m.norm, (expected.get(m.norm) ?? 0) + m.count);
    const stored = await t.db.graphEntity.findMany({ where: { knowledgeId: big }, select: { normName: true, mentionCount: true } });
    expect(new Map(stored.map((e) => [e.normName, e.mentionCount]))).toEqual(expected);

    // A process stopped between two groups leaves the status `building`: the next start removes
    // what was written, so the graph is whole or absent, never partial.
    await t.db.knowledgeFile.update({ where: { id: f.id }, data: { graphStatus: "building" } });
    expect(await recoverInterruptedGraphs(t.db, { all: true, staleBefore: new Date() })).toBe(1);
    expect(await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: f.id } })).toMatchObject({ graphStatus: "failed" });
    expect(await t.db.graphEntity.count({ where: { knowledgeId: big } })).toBe(0);
    await expectConsistent(t);
  });

  it("a file's graph stage gives its indexing slot back: the next file is indexed meanwhile", async () => {
    // One slot. The first file's graph stage waits (before its write) until the second file is
    // searchable: with the slot held through the graph stage, the second file could not start and
    // the wait would time out, failing the first file's graph.
    const kbSlots = await t.newKb("slots");
    await t.upload(kbSlots, [sample(MD)]);
    const first = await t.db.knowledgeFile.findFirstOrThrow({ where: { knowledgeId: kbSlots } });
    await t.upload(kbSlots, [{ name: "second.md", data: "# Second\n\nThe second file of this knowledge base mentions 云笺 and 新加坡." }]);
    const second = await t.db.knowledgeFile.findFirstOrThrow({ where: { knowledgeId: kbSlots, name: "second.md" } });
    let secondReadyDuringFirstGraph = false;
    await t.runJobs({
      concurrency: 1,
      onGraphStage: async (fileId) => {
        if (fileId !== first.id) return;
        const until = Date.now() + 30_000;
        while ((await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: second.id } })).status !== "success") {
          if (Date.now() > until) throw new Error("the second file never started while the first one's graph was being built");
          await new Promise((r) => setTimeout(r, 50));
        }
        secondReadyDuringFirstGraph = true;
      },
    });
    expect(secondReadyDuringFirstGraph).toBe(true);
    const files = await t.db.knowledgeFile.findMany({ where: { knowledgeId: kbSlots }, orderBy: { createdAt: "asc" } });
    expect(files.map((f) => [f.name, f.status, f.graphStatus])).toEqual([
      [MD, "success", "success"],
      ["second.md", "success", "success"],
    ]);
    await expectConsistent(t);
  });

  it("a graph stage waits while another file of this process is being indexed", async () => {
    // Two slots. The second file is held in its parsing stage; the first one, small, is searchable
    // long before. Its graph must not start until the second file is searchable too: indexing
    // comes first on the one embedded connection and this thread (issue 22). Without the wait the
    // first graph starts while the second file still parses.
    const kbWait = await t.newKb("graph waits");
    await t.upload(kbWait, [sample(MD)]);
    const first = await t.db.knowledgeFile.findFirstOrThrow({ where: { knowledgeId: kbWait } });
    await t.upload(kbWait, [{ name: "slow.md", data: "# Slow\n\nThis file is held while it parses; it mentions 云笺 and 新加坡." }]);
    const slow = await t.db.knowledgeFile.findFirstOrThrow({ where: { knowledgeId: kbWait, name: "slow.md" } });
    let slowStatusAtFirstGraph: string | null = null;
    let firstReadyWhileSlowHeld = false;
    let firstGraphReached = () => {};
    const firstGraph = new Promise<void>((resolve) => (firstGraphReached = resolve));
    await t.runJobs({
      concurrency: 2,
      onStage: async (stage, fileId) => {
        if (fileId !== slow.id || stage !== "parsing") return;
        const until = Date.now() + 30_000;
        while ((await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: first.id } })).status !== "success") {
          if (Date.now() > until) throw new Error("the first file never became searchable");
          await new Promise((r) => setTimeout(r, 50));
        }
        firstReadyWhileSlowHeld = true;
        // Held until the first file's graph reaches its write (it must not, while this file is
        // held) or 3 s pass: without the wait the first graph gets there while this one parses.
        await Promise.race([firstGraph, new Promise((r) => setTimeout(r, 3_000))]);
      },
      onGraphStage: async (fileId) => {
        if (fileId !== first.id) return;
        slowStatusAtFirstGraph = (await t.db.knowledgeFile.findUniqueOrThrow({ where: { id: slow.id } })).status;
        firstGraphReached();
      },
    });
    expect(firstReadyWhileSlowHeld).toBe(true);
    expect(slowStatusAtFirstGraph).toBe("success");
    const files = await t.db.knowledgeFile.findMany({ where: { knowledgeId: kbWait }, orderBy: { createdAt: "asc" } });
    expect(files.map((f) => [f.name, f.status, f.graphStatus])).toEqual([
      [MD, "success", "success"],
      ["slow.md", "success", "success"],
    ]);
    await expectConsistent(t);
  });

  it("a failure of the graph stage fails the graph only: the file stays searchable, with the reason", async () => {
    const other = await t.newKb("failing graph");
    await t.upload(other, [sample(MD)]);
    await t.runJobs({
      onGraphStage: () => {
        throw new Error("simulated graph storage outage");
      },
    });
    const f = await t.db.knowledgeFile.findFirstOrThrow({ where: { knowledgeId: other } });
    expect(f).toMatchObject({ status: "success", graphStatus: "failed", graphErrorCode: "INTERNAL_ERROR" });
    expect(f.chunkCount).toBeGreaterThan(0);
    expect(f.graphErrorMessage).toContain("simulated graph storage outage");
    expect(f.graphErrorMessage).toContain("still searchable");
    const job = await t.db.ingestionJob.findFirstOrThrow({ where: { fileId: f.id } });
    expect(job.status).toBe("success");
    expect(await t.db.graphEntity.count({ where: { knowledgeId: other } })).toBe(0);
  });
});
