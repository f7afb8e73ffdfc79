import { describe, expect, it } from "vitest";
import type { IndexableChunk } from "@/lib/retrieval/chunk-postings";
import { IncomingChunks, parseWithFeed, type ChunkHooks } from "./incoming-chunks";
import { IngestionFailure } from "./types";

const chunk = (ordinal: number): IndexableChunk => ({ ordinal, content: `c${ordinal}`, headingPath: "", pageStart: null, pageEnd: null, tokens: `c${ordinal}`, tokenCount: 1, terms: [`c${ordinal}`], tfs: [1] }) as unknown as IndexableChunk;
const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

describe("IncomingChunks: a file's chunks as its parse thread sends them", () => {
  it("upTo waits for the chunks asked for; headingRuns for the last slice", async () => {
    const feed = new IncomingChunks(5);
    const three = feed.upTo(3);
    const runs = feed.headingRuns();
    feed.push([chunk(0), chunk(1)]);
    expect(await settled(three)).toBe(false);
    feed.push([chunk(2), chunk(3)]);
    expect(await settled(three)).toBe(true);
    expect(feed.chunks.map((c) => c.ordinal)).toEqual([0, 1, 2, 3]);
    // More than the file has is capped at its total.
    const all = feed.upTo(99);
    feed.push([chunk(4)]);
    await all;
    expect(await settled(runs)).toBe(false);
    feed.finish([{ term: "t", first: 0, last: 4 }]);
    expect(await runs).toEqual([{ term: "t", first: 0, last: 4 }]);
  });

  it("a failed parse rejects every wait with its reason, including later ones", async () => {
    const feed = new IncomingChunks(400);
    feed.push([chunk(0)]);
    const waiting = feed.upTo(200);
    const failure = new IngestionFailure("FILE_TOO_LARGE", "over the time budget");
    feed.fail(failure);
    await expect(waiting).rejects.toBe(failure);
    await expect(feed.upTo(300)).rejects.toBe(failure);
    await expect(feed.headingRuns()).rejects.toBe(failure);
    // What had arrived is still there (already written batches are the job's to delete).
    expect(await feed.upTo(1)).toBeUndefined();
  });
});

describe("parseWithFeed", () => {
  it("gives the feed at the chunk count, before the parse ends; the result has every chunk", async () => {
    let hooks!: ChunkHooks;
    type Result = { headingRuns: []; chunks: IndexableChunk[] };
    let end!: (r: Result) => void;
    const { feed, parsed } = parseWithFeed((h) => {
      hooks = h;
      return new Promise<Result>((resolve) => (end = resolve));
    });
    hooks.onChunked(2);
    const f = await feed;
    expect(f.total).toBe(2);
    hooks.onChunks([chunk(0)]);
    hooks.onChunks([chunk(1)]);
    await f.upTo(2);
    expect(await settled(parsed)).toBe(false);
    end({ headingRuns: [], chunks: [chunk(0), chunk(1)] });
    expect((await parsed).chunks).toHaveLength(2);
    expect(await f.headingRuns()).toEqual([]);
  });

  it("a parse that fails before the chunk count rejects the feed with its reason", async () => {
    const failure = new IngestionFailure("FILE_TYPE_UNSUPPORTED", "no text");
    const { feed, parsed } = parseWithFeed(() => Promise.reject<{ headingRuns: [] }>(failure));
    await expect(feed).rejects.toBe(failure);
    await expect(parsed).rejects.toBe(failure);
  });
});
