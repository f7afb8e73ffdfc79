import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { headingTermRuns } from "@/lib/retrieval/chunk-postings";
import { runParseTask, type ParseMessage } from "./parse-task";
import { DEFAULT_CONTENT_LIMITS } from "./types";

const dir = mkdtempSync(path.join(tmpdir(), "parse-task-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tick = () => new Promise((r) => setTimeout(r, 20));

describe("runParseTask", () => {
  it("sends the next slice of chunks only after the receiver took the previous one", async () => {
    // ~600 sections of one short paragraph: several slices of chunks.
    const file = path.join(dir, "many.md");
    writeFileSync(file, Array.from({ length: 600 }, (_, i) => `## Section ${i}\n\nParagraph ${i} about topic ${i % 17} and its details.\n`).join("\n"));
    const messages: ParseMessage[] = [];
    const pending: Array<() => void> = [];
    const run = runParseTask(
      { fileType: "md", filePath: file, deadline: Date.now() + 60_000, timeoutMs: 60_000, maxPages: 5000, limits: DEFAULT_CONTENT_LIMITS, chunk: { targetChars: 650, overlapChars: 100 } },
      (m) => {
        messages.push(m);
        if (m.type === "chunks") return new Promise<void>((resolve) => pending.push(resolve));
      },
    );
    const slices = () => messages.filter((m) => m.type === "chunks").length;
    for (let taken = 0; ; ) {
      await tick();
      const done = messages.some((m) => m.type === "done" || m.type === "failed");
      // Never more than one slice not yet taken; done only after the last one was.
      expect(slices()).toBe(done ? taken : taken + 1);
      if (done) break;
      pending[taken++]!();
    }
    await run;
    expect(messages.at(-1)).toMatchObject({ type: "done" });
    expect(slices()).toBeGreaterThanOrEqual(3);
    const chunks = messages.flatMap((m) => (m.type === "chunks" ? m.items : []));
    const done = messages.at(-1) as Extract<ParseMessage, { type: "done" }>;
    expect(chunks.length).toBe(done.chunkCount);
    // The file's heading runs come with the result, computed on the parse thread.
    expect(done.headingRuns.length).toBeGreaterThan(0);
    expect(done.headingRuns).toEqual(headingTermRuns(chunks));
  });
});
