import { describe, expect, it } from "vitest";
import type { RetrievalHit } from "@/lib/retrieval/types";
import { cutQuote, toReferences } from "./references";

describe("reference quotes", () => {
  it("cut after a whole sentence, else a whole word, never inside one", () => {
    const en = `${"The keeper lights the lamp at dusk and checks the lens every evening. ".repeat(4)}The Rotholm lighthouse was built in 1872 on the northern cliffs of the island.`;
    const q = cutQuote(en, 300);
    expect(q.endsWith("evening.…")).toBe(true);
    const words = "word ".repeat(80);
    expect(cutQuote(words, 300)).toMatch(/word…$/);
    expect(cutQuote("短句。", 300)).toBe("短句。");
    // Soft line breaks of older chunks are joined in the quote.
    expect(cutQuote("Administrators invite members from the admin console. An invitation link is\nvalid for 7 days.")).toBe(
      "Administrators invite members from the admin console. An invitation link is valid for 7 days.",
    );
  });

  it("quote the sentences the answer quotes when given", () => {
    const hit = { content: "A. The budget is 2 M. C.", score: 0.9, fileId: "f", fileName: "f.md", pageStart: null, pageEnd: null, headingPath: "", chunkId: "c", sourceType: "knowledge_base", sourceId: "k", sourceUri: null, sourceName: "k" } as unknown as RetrievalHit;
    const [withQuote, plain] = toReferences([hit, hit], new Map([[1, "The budget is 2 M."]]));
    expect(withQuote!.quote).toBe("The budget is 2 M.");
    expect(plain!.quote).toBe("A. The budget is 2 M. C.");
  });
});

describe("the page of a quote in a chunk spanning pages", () => {
  it("names the page holding the quoted sentence, not the chunk's range", async () => {
    const { toReferences } = await import("./references");
    const content = "The keeper lights the lamp at dusk.\nThe Rotholm lighthouse was\nbuilt in 1872.\nVisitors may climb the tower.";
    const hit = { content, score: 0.9, fileId: "f", fileName: "lighthouse.pdf", pageStart: 1, pageEnd: 3, headingPath: "", chunkId: "c", sourceType: "knowledge-base", sourceId: "k", sourceUri: null, sourceName: "k" } as unknown as RetrievalHit;
    const marks = new Map([["c", [[0, 1], [content.indexOf("The Rotholm"), 2], [content.indexOf("Visitors"), 3]] as Array<[number, number]>]]);
    const [ref] = toReferences([hit], new Map([[1, "The Rotholm lighthouse was built in 1872."]]), marks);
    expect([ref!.page_start, ref!.page_end]).toEqual([2, 2]);
    // Without marks (indexed before, or one page) the chunk's range stays.
    const [old] = toReferences([hit], new Map([[1, "The Rotholm lighthouse was built in 1872."]]));
    expect([old!.page_start, old!.page_end]).toEqual([1, 3]);
  });
});

