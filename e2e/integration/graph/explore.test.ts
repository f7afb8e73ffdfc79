import { it } from "vitest";
import { seedSampleKnowledge } from "@/lib/ingestion/sample";
import { queryKnowledgeGraph } from "@/lib/graph/query";
import { openTestEnv } from "../ingestion/helpers";

it("explore", async () => {
  const t = await openTestEnv();
  const kbId = await seedSampleKnowledge(t.db, { ownerId: t.userId, dataDir: t.dataDir });
  const t0 = Date.now();
  await t.runJobs();
  console.log("jobs ms", Date.now() - t0);
  console.log(await t.db.knowledgeFile.findMany({ select: { name: true, status: true, graphStatus: true, graphErrorMessage: true, chunkCount: true } }));
  const ents = await t.db.graphEntity.findMany({ where: { knowledgeId: kbId! }, orderBy: { mentionCount: "desc" }, take: 60 });
  console.log(ents.map((e) => `${e.name}|${e.type}|${e.mentionCount}|${e.aliases.join("/")}`).join("\n"));
  console.log("entities", await t.db.graphEntity.count(), "relations", await t.db.graphRelation.count());
  for (const q of ["云笺", "Yunjian"]) {
    const r = await queryKnowledgeGraph(t.db, { knowledgeIds: [kbId!], query: q, depth: 1, maxEntities: 2, maxRelations: 10, passagesPerRelation: 1 });
    for (const e of r.entities) console.log(q, "→", e.name, e.type, e.relations.map((x) => `${x.source_name}-${x.target_name}:${x.weight}(${x.support_count})`).join(", "));
  }
  await t.close();
});
