import { describe, expect, it } from "vitest";
import type { BuiltGraph } from "./build";
import { groupRows } from "./store";

// A large file's graph rows are sorted into write groups on the server's thread: the sorting
// gives the event loop turns (requests arriving meanwhile are answered), and the groups are the
// same whatever the pace.

function largeGraph(chunks: number, perChunk: number): BuiltGraph {
  const chunkIds = Array.from({ length: chunks }, (_, i) => `c${i}`);
  const names = Array.from({ length: perChunk * 2 }, (_, i) => `entity ${i}`);
  const mentions = chunkIds.flatMap((chunkId, c) =>
    Array.from({ length: perChunk }, (_, k) => ({ norm: names[(c + k) % names.length]!, chunkId, start: k, end: k + 3, count: 1 })),
  );
  const relations = [
    { source: names[0]!, target: names[1]!, relation: "co_occurs", description: "", supports: chunkIds.map((chunkId) => ({ chunkId, start: 0, end: 5, count: 1 })) },
  ];
  return { chunkIds, entities: names.map((n) => ({ norm: n, name: n, type: "concept" as never, aliases: [], description: "" })), mentions, relations, sentenceCount: chunks };
}

describe("groupRows", () => {
  it("lets the event loop run while it sorts a large file's rows, and splits them into bounded groups", async () => {
    const graph = largeGraph(3000, 5);
    let immediateRan = false;
    setImmediate(() => (immediateRan = true));
    const { groups, entities } = await groupRows(graph);
    // A callback queued before the sorting ran before it finished: it yielded at least once.
    expect(immediateRan).toBe(true);
    const mentions = groups.reduce((n, g) => n + g.mentions.length, 0);
    expect(mentions).toBe(graph.mentions.length);
    expect(entities).toBe(graph.entities.length);
    for (const g of groups) expect(g.mentions.length + g.supports.length).toBeLessThanOrEqual(2_000 + 6);
    expect(groups.length).toBeGreaterThan(5);
  });
});
