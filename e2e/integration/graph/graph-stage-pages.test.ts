import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFileGraph } from "@/lib/graph/build";
import { runGraphStage } from "@/lib/graph/stage";
import { writeFileGraph } from "@/lib/graph/store";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { openTestEnv, type TestEnv } from "../ingestion/helpers";
import { graphOf } from "./support/graph-rows";

// The graph stage reads a file's chunks a page at a time (lib/graph/stage.ts): read in one
// statement, a large file's text held the embedded database and the server's thread for
// hundreds of milliseconds (issue 22, session 21). The graph it builds is the one built from all
// of the chunks at once.

const PEOPLE = ["Alice Zhang", "Bob Li", "Carol Wang", "David Chen", "Eva Liu", "Frank Zhou", "Grace Wu", "Henry Xu"];
const PLACES = ["Shanghai", "Beijing", "Shenzhen", "Hangzhou", "Chengdu"];

function bigMarkdown(sections: number): string {
  const out: string[] = [];
  for (let i = 0; i < sections; i++) {
    const a = PEOPLE[i % PEOPLE.length]!;
    const b = PEOPLE[(i * 3 + 1) % PEOPLE.length]!;
    const p = PLACES[i % PLACES.length]!;
    out.push(
      `## Meeting ${i}\n\n${a} met ${b} in ${p} to review Project Orion phase ${i}. ` +
        `${a} presented the budget of Northwind Traders and ${b} answered questions about the schedule. `.repeat(3) +
        `They agreed to meet again in ${PLACES[(i + 2) % PLACES.length]} next quarter.\n`,
    );
  }
  return out.join("\n");
}

describe("graph stage on a large file", () => {
  let t: TestEnv;
  beforeAll(async () => {
    t = await openTestEnv();
  });
  afterAll(async () => t?.close());

  it("reads the chunks in pages and builds the same graph as from all chunks at once", async () => {
    const kb = await t.newKb("graph pages");
    await t.upload(kb, [{ name: "meetings.md", data: bigMarkdown(1300) }]);
    await t.runJobs();
    const file = await t.db.knowledgeFile.findFirstOrThrow({ where: { knowledgeId: kb } });
    expect(file.status).toBe("success");
    const all = await t.db.chunk.findMany({ where: { fileId: file.id }, orderBy: { ordinal: "asc" }, select: { id: true, content: true } });
    expect(all.length).toBeGreaterThan(1000);

    // The stage again, on a client that records how many chunks each read returned.
    await t.db.knowledgeFile.update({ where: { id: file.id }, data: { graphStatus: "pending" } });
    const reads: number[] = [];
    const chunkDelegate = t.db.chunk;
    const recording = new Proxy(t.db, {
      get(target, prop, receiver) {
        if (prop !== "chunk") return Reflect.get(target, prop, receiver);
        return new Proxy(chunkDelegate, {
          get(c, p) {
            if (p !== "findMany") return Reflect.get(c, p);
            return async (args: Parameters<typeof chunkDelegate.findMany>[0]) => {
              const rows = await chunkDelegate.findMany(args);
              reads.push(rows.length);
              return rows;
            };
          },
        });
      },
    }) as PrismaClient;
    const staged = await runGraphStage(recording, { knowledgeId: kb, fileId: file.id });
    expect(staged.status).toBe("success");
    expect(reads.length).toBeGreaterThan(2);
    expect(Math.max(...reads)).toBeLessThanOrEqual(500);
    expect(reads.reduce((a, b) => a + b, 0)).toBe(all.length);
    const paged = await graphOf(t, kb);
    expect(paged.length).toBeGreaterThan(1000);

    // The graph of all chunks at once, written the same way, is the same graph.
    const whole = await writeFileGraph(t.db, { knowledgeId: kb, fileId: file.id, graph: buildFileGraph(all) });
    expect(whole).toEqual({ entities: staged.entities, relations: staged.relations });
    expect(await graphOf(t, kb)).toEqual(paged);
  });
});
