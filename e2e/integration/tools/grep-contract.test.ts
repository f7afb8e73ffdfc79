import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readableKnowledgeIds } from "@/lib/auth/access";
import { callTool } from "@/lib/tools/registry";
import { GREP_MAX_CHUNKS, type GrepChunksOutput } from "@/lib/tools/grep-chunks";
import type { ToolContext } from "@/lib/tools/types";
import { seedIndexedFile } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

// grep_chunks' output contract, which any rewrite of its counting must keep (one that counted
// in SQL was tried): literal counts from the documents' text only, ties at the max_documents
// cut broken by name, keyword_counts' key order, at most 10 chunks per document, and what
// `truncated` and file_ids cover when the KB holds more matches than the cap.
// Real database (PGlite, or PostgreSQL with TEST_DATABASE_URL) through the tool registry.
type App = Awaited<ReturnType<typeof startIntegrationApp>>;

describe("grep_chunks contract", () => {
  let app: App;
  let ctx: ToolContext;
  let kbTies: string;
  let kbBig: string;
  let kbThree: string;
  const files: Record<string, string> = {};

  const grep = async (args: Record<string, unknown>): Promise<GrepChunksOutput> => {
    const r = await callTool("grep_chunks", args, ctx);
    if (r.status !== "ok") throw new Error(r.message);
    return r.output as GrepChunksOutput;
  };

  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "password" });
    const a = new Client(app.baseUrl);
    await a.signUp({ email: "gc@x.test", password: "password-gc" });
    kbTies = (await a.json<{ id: string }>("POST", "/v1/knowledges", { name: "Ties" })).data.id;
    kbBig = (await a.json<{ id: string }>("POST", "/v1/knowledges", { name: "Big" })).data.id;
    // Created in an order unrelated to their names, so ids (random) do not sort like names.
    for (const name of ["delta.txt", "Bravo.txt", "alpha.txt", "charlie.txt"]) {
      files[name] = await seedIndexedFile(kbTies, name, [{ content: `one zebra in ${name}`, headingPath: "zebra zebra zebra" }]);
    }
    // Two zebras and one okapi: first by distinct keywords; okapi occurs first (chunk 0), zebra
    // from chunk 3; "AAAA" holds two non-overlapping "aa".
    files["many.txt"] = await seedIndexedFile(kbTies, "many.txt", [
      { content: "an OKAPI here, AAAA" },
      { content: "nothing" },
      { content: "nothing either" },
      { content: "ZEBRA and zebra" },
    ]);
    // 12 matching chunks of one document: all counted, only the first 10 returned.
    files["long.txt"] = await seedIndexedFile(
      kbTies,
      "long.txt",
      Array.from({ length: 12 }, (_, i) => ({ content: `gnu ${i} gnu gnu gnu and more gnu` })),
    );
    // More matching chunks than the cap, over two documents.
    files["big1.txt"] = await seedIndexedFile(kbBig, "big1.txt", Array.from({ length: 1500 }, (_, i) => ({ content: `walrus ${i}` })));
    files["big2.txt"] = await seedIndexedFile(kbBig, "big2.txt", Array.from({ length: 600 }, (_, i) => ({ content: `walrus ${i} walrus` })));
    // Three keywords, each in 2,001 chunks of its own document: the arms find three times the cap.
    kbThree = (await a.json<{ id: string }>("POST", "/v1/knowledges", { name: "Three" })).data.id;
    for (const word of ["antelope", "bison", "caribou"]) {
      files[`${word}.txt`] = await seedIndexedFile(kbThree, `${word}.txt`, Array.from({ length: GREP_MAX_CHUNKS + 1 }, (_, i) => ({ content: `${word} ${i}` })));
    }
    const me = (await a.json<{ user: { id: string } }>("GET", "/v1/auth/me")).data.user.id;
    ctx = { userId: me, readableKnowledgeIds: await readableKnowledgeIds(me), signal: new AbortController().signal };
  }, 300_000);
  afterAll(() => app.close());

  it("ties at the max_documents cut are broken by name, not by id; the heading is not counted", async () => {
    const out = await grep({ keywords: ["zebra"], knowledge_base_ids: [kbTies], max_documents: 3 });
    expect(out.truncated).toBe(false);
    // many.txt has 2; the four one-zebra files tie and localeCompare orders alpha, Bravo, …
    expect(out.documents.map((d) => d.file_name)).toEqual(["many.txt", "alpha.txt", "Bravo.txt"]);
    expect(out.documents.map((d) => d.keyword_counts)).toEqual([{ zebra: 2 }, { zebra: 1 }, { zebra: 1 }]);
    const all = await grep({ keywords: ["zebra"], knowledge_base_ids: [kbTies] });
    expect(all.documents.map((d) => d.file_name)).toEqual(["many.txt", "alpha.txt", "Bravo.txt", "charlie.txt", "delta.txt"]);
  });

  it("literal, non-overlapping, case-insensitive counts; keyword_counts keys in order of first occurrence", async () => {
    const out = await grep({ keywords: ["zebra", "aa", "okapi", "absent"], knowledge_base_ids: [kbTies], file_ids: [files["many.txt"]] });
    expect(out.documents).toHaveLength(1);
    const [d] = out.documents;
    expect(d).toMatchObject({ file_name: "many.txt", distinct_keywords: 3, total_matches: 5 });
    // aa and okapi first occur in chunk 0 (asked in that order), zebra in chunk 3.
    expect(Object.entries(d!.keyword_counts)).toEqual([
      ["aa", 2],
      ["okapi", 1],
      ["zebra", 2],
    ]);
    expect(d!.chunks.map((c) => c.chunk_index)).toEqual([0, 3]);
    expect(d!.chunks[1]!.snippets).toEqual(["ZEBRA and zebra", "ZEBRA and zebra"]);
  });

  it("every matching chunk is counted, the first 10 are returned in document order with at most 3 snippets", async () => {
    const out = await grep({ keywords: ["gnu"], knowledge_base_ids: [kbTies] });
    const d = out.documents.find((x) => x.file_id === files["long.txt"])!;
    expect(d).toMatchObject({ keyword_counts: { gnu: 60 }, total_matches: 60 });
    expect(d.chunks.map((c) => c.chunk_index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(d.chunks.every((c) => c.snippets.length === 3)).toBe(true);
  });

  it("past the cap: truncated, and the counts cover exactly GREP_MAX_CHUNKS matching chunks", async () => {
    const out = await grep({ keywords: ["walrus"], knowledge_base_ids: [kbBig] });
    expect(out.truncated).toBe(true);
    // Each keyword arm stops at the cap, so which chunks past it are left out follows the index;
    // how many are counted does not: big1's chunks hold one walrus, big2's two.
    const total = (name: string) => out.documents.find((d) => d.file_name === name)?.total_matches ?? 0;
    expect(total("big1.txt") + total("big2.txt") / 2).toBe(GREP_MAX_CHUNKS);
    expect(total("big2.txt") % 2).toBe(0);
    const narrow = await grep({ keywords: ["walrus"], knowledge_base_ids: [kbBig], file_ids: [files["big2.txt"]] });
    expect(narrow.truncated).toBe(false);
    expect(narrow.documents.map((d) => [d.file_name, d.total_matches])).toEqual([["big2.txt", 1200]]);
  });

  it("past the cap, the chunks counted are the first ones in document order of all the arms found", async () => {
    // The arms together found 6,003 chunks. Before, up to twice the cap of them (whichever the
    // union gave first) were read and then ordered, so the first document came out partly
    // counted, next to parts of the others; now the order decides before any text is read.
    const out = await grep({ keywords: ["antelope", "bison", "caribou"], knowledge_base_ids: [kbThree] });
    expect(out.truncated).toBe(true);
    // The first document by id (in the database's collation) alone, every chunk of it counted.
    expect(out.documents).toHaveLength(1);
    expect(["antelope.txt", "bison.txt", "caribou.txt"]).toContain(out.documents[0]!.file_name);
    expect(out.documents[0]!.total_matches).toBe(GREP_MAX_CHUNKS);
    expect(out.documents[0]!.chunks.map((c) => c.chunk_index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
