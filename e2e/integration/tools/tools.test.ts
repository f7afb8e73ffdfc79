import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readableKnowledgeIds } from "@/lib/auth/access";
import { getDb, getRawDb } from "@/lib/db/client";
import { grepStatement } from "@/lib/tools/grep-chunks";
import { callTool, inputJsonSchema, TOOLS } from "@/lib/tools/registry";
import type { ToolContext } from "@/lib/tools/types";
import { SAMPLE_CHUNKS, seedIndexedFile } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

// Every tool over the real database (PGlite, or PostgreSQL with TEST_DATABASE_URL), with two
// users so access is checked, through the registry the MCP route and agent mode use.
type App = Awaited<ReturnType<typeof startIntegrationApp>>;

describe("agent tools", () => {
  let app: App;
  let ctxA: ToolContext;
  let ctxB: ToolContext;
  let kbA: string;
  let kbEmpty: string;
  let kbIndexing: string;
  let kbB: string;
  let policy: string;
  let manual: string;
  let failed: string;
  let fileB: string;

  const ctxFor = async (userId: string): Promise<ToolContext> => ({
    userId,
    readableKnowledgeIds: await readableKnowledgeIds(userId),
    signal: new AbortController().signal,
  });

  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "password" });
    const a = new Client(app.baseUrl);
    const b = new Client(app.baseUrl);
    await a.signUp({ email: "ta@x.test", password: "password-a" });
    await b.signUp({ email: "tb@x.test", password: "password-b" });
    kbA = (await a.json<{ id: string }>("POST", "/v1/knowledges", { name: "Manuals" })).data.id;
    kbEmpty = (await a.json<{ id: string }>("POST", "/v1/knowledges", { name: "Empty" })).data.id;
    kbIndexing = (await a.json<{ id: string }>("POST", "/v1/knowledges", { name: "Indexing" })).data.id;
    kbB = (await b.json<{ id: string }>("POST", "/v1/knowledges", { name: "B only" })).data.id;
    policy = await seedIndexedFile(kbA, "policy.pdf", SAMPLE_CHUNKS);
    manual = await seedIndexedFile(
      kbA,
      "manual.md",
      Array.from({ length: 12 }, (_, i) => ({
        content: i === 5 ? "Warranty claims: send the receipt. The warranty needs the serial number 100%_OK." : `Section ${i} of the manual about cleaning the filter.`,
        headingPath: `Manual / ${i}`,
      })),
    );
    failed = await seedIndexedFile(kbA, "broken.pdf", [{ content: "never indexed" }], "failed");
    await (await getDb()).knowledgeFile.update({ where: { id: failed }, data: { errorCode: "PARSE_FAILED", errorMessage: "The PDF is encrypted." } });
    await seedIndexedFile(kbIndexing, "later.txt", [{ content: "warranty later" }], "parsing");
    fileB = await seedIndexedFile(kbB, "secret.txt", [{ content: "The warranty of user B is secret." }]);
    const me = async (c: Client) => (await c.json<{ user: { id: string } }>("GET", "/v1/auth/me")).data.user.id;
    ctxA = await ctxFor(await me(a));
    ctxB = await ctxFor(await me(b));
  });
  afterAll(() => app.close());

  it("registry: every tool has a JSON schema, a description with guidance, and unknown names are refused", async () => {
    expect(TOOLS.map((t) => t.name)).toEqual(["list_knowledge_bases", "knowledge_search", "grep_chunks", "get_document_info", "list_knowledge_chunks", "query_knowledge_graph"]);
    for (const t of TOOLS) expect(inputJsonSchema(t).type).toBe("object");
    expect(TOOLS.find((t) => t.name === "grep_chunks")!.description).toMatch(/short keywords/);
    expect(TOOLS.find((t) => t.name === "knowledge_search")!.description).toMatch(/chunk_index - 2/);
    const r = await callTool("drop_tables", {}, ctxA);
    expect(r).toMatchObject({ status: "error", code: "TOOL_NOT_FOUND" });
  });

  it("list_knowledge_bases: only the caller's KBs, with counts and status", async () => {
    const r = await callTool("list_knowledge_bases", {}, ctxA);
    if (r.status !== "ok") throw new Error(r.message);
    const out = r.output as { knowledge_bases: Array<Record<string, unknown>> };
    expect(out.knowledge_bases.map((k) => k.name)).toEqual(["Manuals", "Empty", "Indexing"]);
    expect(out.knowledge_bases[0]).toMatchObject({ id: kbA, file_count: 3, ready_file_count: 2, failed_file_count: 1, chunk_count: 16, status: "ready" });
    expect(out.knowledge_bases[1]).toMatchObject({ status: "empty", file_count: 0 });
    expect(out.knowledge_bases[2]).toMatchObject({ status: "indexing", indexing_file_count: 1 });
    expect(r.count).toBe(3);
    const rb = await callTool("list_knowledge_bases", {}, ctxB);
    expect((rb as { output: { knowledge_bases: unknown[] } }).output.knowledge_bases).toHaveLength(1);
    expect((await callTool("list_knowledge_bases", { x: 1 }, ctxA)) as { message: string }).toMatchObject({ code: "INVALID_PARAMS", message: "unknown argument(s): x" });
  });

  it("knowledge_search: merged, deduplicated hits with chunk index; other users' KBs look missing", async () => {
    const r = await callTool("knowledge_search", { queries: ["warranty battery months", "how long is the warranty"], top_k: 5 }, ctxA);
    if (r.status !== "ok") throw new Error(r.message);
    const hits = (r.output as { hits: Array<{ chunk_id: string; file_id: string; chunk_index: number; text: string; score: number }> }).hits;
    expect(hits.length).toBeGreaterThan(0);
    expect(new Set(hits.map((h) => h.chunk_id)).size).toBe(hits.length);
    expect(hits.some((h) => h.file_id === policy && h.chunk_index === 2 && h.text.includes("Batteries"))).toBe(true);
    expect(hits.every((h) => h.file_id !== fileB)).toBe(true);
    const foreign = await callTool("knowledge_search", { queries: ["warranty"], knowledge_base_ids: [kbB] }, ctxA);
    expect(foreign).toMatchObject({ status: "error", code: "KNOWLEDGE_NOT_FOUND" });
    const unknown = await callTool("knowledge_search", { queries: ["warranty"], knowledge_base_ids: ["nope"] }, ctxA);
    expect((unknown as { message: string }).message).toBe((foreign as { message: string }).message.replace(kbB, "nope"));
  });

  it("knowledge_search and grep_chunks: a KB with no ready files gives an empty result with a reason", async () => {
    for (const [kb, reason] of [
      [kbEmpty, /no files/],
      [kbIndexing, /no searchable/],
    ] as const) {
      const s = await callTool("knowledge_search", { queries: ["warranty"], knowledge_base_ids: [kb] }, ctxA);
      expect(s).toMatchObject({ status: "ok", count: 0 });
      expect((s as { output: { reason: string } }).output.reason).toMatch(reason);
      const g = await callTool("grep_chunks", { keywords: ["warranty"], knowledge_base_ids: [kb] }, ctxA);
      expect((g as { output: { documents: unknown[]; reason: string } }).output).toMatchObject({ documents: [] });
      expect((g as { output: { reason: string } }).output.reason).toMatch(reason);
    }
  });

  it("knowledge_search and grep_chunks read the files' states only when they found nothing", async () => {
    // A hit or a match comes from a ready file, so the files' states (the reason of an empty
    // result) are not read when there is one: on PGlite each statement is a round trip to the
    // database thread, a visible share of a small KB's call.
    const raw = await getRawDb();
    const spy = vi.spyOn(raw, "$queryRawUnsafe");
    const stateReads = () => spy.mock.calls.filter(([sql]) => String(sql).includes("FILTER (WHERE status = 'success')")).length;
    try {
      const s = await callTool("knowledge_search", { queries: ["warranty"], knowledge_base_ids: [kbA] }, ctxA);
      expect(s).toMatchObject({ status: "ok", output: { reason: null } });
      expect((s as { count: number }).count).toBeGreaterThan(0);
      const g = await callTool("grep_chunks", { keywords: ["warranty"], knowledge_base_ids: [kbA] }, ctxA);
      expect(g).toMatchObject({ status: "ok", count: 2, output: { reason: null } });
      expect(stateReads()).toBe(0);
      // Nothing found in a KB with ready files: the states are read, and the reason says so.
      const none = await callTool("grep_chunks", { keywords: ["okapi"], knowledge_base_ids: [kbA] }, ctxA);
      expect(none).toMatchObject({ status: "ok", count: 0, output: { reason: 'No document contains "okapi".' } });
      expect(stateReads()).toBe(1);
      // With file_ids, knowledge_search still asks first: retrieve() refuses a file that is not
      // ready, and a KB with no ready file answers with its reason instead.
      const indexingFile = (await (await getDb()).knowledgeFile.findFirstOrThrow({ where: { knowledgeId: kbIndexing } })).id;
      const filtered = await callTool("knowledge_search", { queries: ["warranty"], knowledge_base_ids: [kbIndexing], file_ids: [indexingFile] }, ctxA);
      expect((filtered as { output: { reason: string } }).output.reason).toMatch(/no searchable/);
    } finally {
      spy.mockRestore();
    }
  });

  it("knowledge_search: every validation message", async () => {
    const msg = async (args: unknown) => {
      const r = await callTool("knowledge_search", args, ctxA);
      expect(r.status).toBe("error");
      return (r as { message: string }).message;
    };
    expect(await msg({})).toMatch(/^queries: /);
    expect(await msg({ queries: [] })).toBe("queries: give at least one query");
    expect(await msg({ queries: ["a", "b", "c", "d", "e", "f"] })).toBe("queries: at most 5 queries per call");
    expect(await msg({ queries: ["x".repeat(501)] })).toBe("queries.0: each query is too long (at most 500 characters)");
    expect(await msg({ queries: ["   "] })).toBe("queries.0: each query must not be empty");
    expect(await msg({ queries: ["a\u0000b"] })).toBe("queries.0: each query must not contain NUL characters");
    expect(await msg({ queries: ["a"], top_k: 21 })).toBe("top_k: top_k must be at most 20");
    expect(await msg({ queries: ["a"], top_k: "5" })).toMatch(/^top_k: .*number/);
    expect(await msg({ queries: "warranty" })).toMatch(/^queries: .*array/);
  });

  it("grep_chunks: literal, case-insensitive, per document, ordered by distinct keywords then count", async () => {
    const r = await callTool("grep_chunks", { keywords: ["WARRANTY", "months"] }, ctxA);
    if (r.status !== "ok") throw new Error(r.message);
    const docs = (r.output as { documents: Array<{ file_id: string; keyword_counts: Record<string, number>; distinct_keywords: number; total_matches: number; chunks: Array<{ chunk_index: number; snippets: string[] }> }> }).documents;
    // policy.pdf: WARRANTY ×1 + months ×2 (2 distinct); manual.md: WARRANTY ×2 (1 distinct).
    expect(docs.map((d) => d.file_id)).toEqual([policy, manual]);
    expect(docs[0]).toMatchObject({ keyword_counts: { WARRANTY: 1, months: 2 }, distinct_keywords: 2, total_matches: 3 });
    expect(docs[1]).toMatchObject({ keyword_counts: { WARRANTY: 2 }, distinct_keywords: 1, total_matches: 2 });
    expect(docs[1]!.chunks).toEqual([{ chunk_id: expect.any(String), chunk_index: 5, snippets: expect.arrayContaining([expect.stringContaining("Warranty claims")]) }]);
    // Same distinct count: more matches first.
    const byCount = await callTool("grep_chunks", { keywords: ["warranty"] }, ctxA);
    expect((byCount as { output: { documents: Array<{ file_id: string }> } }).output.documents.map((d) => d.file_id)).toEqual([manual, policy]);
    // More distinct keywords move manual.md first.
    const r2 = await callTool("grep_chunks", { keywords: ["warranty", "receipt", "serial"] }, ctxA);
    expect((r2 as { output: { documents: Array<{ file_id: string }> } }).output.documents[0]!.file_id).toBe(manual);
    // % and _ are literal characters, not wildcards.
    const lit = await callTool("grep_chunks", { keywords: ["100%_OK"] }, ctxA);
    expect((lit as { count: number }).count).toBe(1);
    const notWild = await callTool("grep_chunks", { keywords: ["Sec%ion"] }, ctxA);
    expect(notWild).toMatchObject({ status: "ok", count: 0 });
    // Chinese, and never another user's document.
    const zh = await callTool("grep_chunks", { keywords: ["市场规模"] }, ctxA);
    expect((zh as { output: { documents: Array<{ keyword_counts: Record<string, number> }> } }).output.documents[0]!.keyword_counts["市场规模"]).toBe(2);
    // A two-character keyword (no trigram) is found through the word postings.
    const short = await callTool("grep_chunks", { keywords: ["规模", "ab"] }, ctxA);
    expect((short as { output: { documents: Array<{ file_id: string; keyword_counts: Record<string, number> }> } }).output.documents).toEqual([
      expect.objectContaining({ file_id: policy, keyword_counts: { 规模: 2 } }),
    ]);
    const b = await callTool("grep_chunks", { keywords: ["warranty"] }, ctxB);
    expect((b as { output: { documents: Array<{ file_id: string }> } }).output.documents.map((d) => d.file_id)).toEqual([fileB]);
    expect(await callTool("grep_chunks", { keywords: ["warranty"], knowledge_base_ids: [kbA] }, ctxB)).toMatchObject({ code: "KNOWLEDGE_NOT_FOUND" });
  });

  it("grep_chunks: refuses regular expressions, long or too many keywords", async () => {
    const msg = async (keywords: unknown) => ((await callTool("grep_chunks", { keywords }, ctxA)) as { message: string }).message;
    for (const re of ["保修.*期限", "\\d+", "^start", "end$", "a|b", "[abc]", "x{2,3}", "(?i)x"]) {
      expect(await msg([re])).toMatch(/^keywords.0: grep_chunks matches literal text, not regular expressions/);
    }
    expect(await msg(["x".repeat(51)])).toBe("keywords.0: each keyword is too long (at most 50 characters)");
    expect(await msg(Array.from({ length: 11 }, (_, i) => `k${i}`))).toBe("keywords: at most 10 keywords per call");
    expect(await msg([])).toBe("keywords: give at least one keyword");
  });

  it("grep_chunks: the trigram index answers the keyword match of grep_indexed files", async () => {
    const db = await getDb();
    const { sql, params } = grepStatement(["warranty", "receipt"], [kbA], undefined);
    const plan = await db.$transaction(async (tx) => {
      // A few rows only: forbid the other plans so the index's usability is what is checked
      // (bench:tools shows the planner choosing it at 200k chunks).
      await tx.$executeRawUnsafe("SET LOCAL enable_seqscan = off");
      await tx.$executeRawUnsafe("SET LOCAL enable_indexscan = off");
      return tx.$queryRawUnsafe<Array<{ "QUERY PLAN": string }>>(`EXPLAIN ${sql}`, ...params);
    });
    expect(plan.map((p) => p["QUERY PLAN"]).join("\n")).toContain("chunk_grep_kb_text_idx");
    // The seeded files were written whole (replaceFileChunks): their text is in the index.
    const files = await db.knowledgeFile.findMany({ where: { id: { in: [policy, manual] } }, select: { grepIndexed: true } });
    expect(files.map((f) => f.grepIndexed)).toEqual([true, true]);
  });

  it("get_document_info: facts of readable files; foreign and unknown ids are not found", async () => {
    const r = await callTool("get_document_info", { file_ids: [policy, failed, fileB, "missing"] }, ctxA);
    if (r.status !== "ok") throw new Error(r.message);
    const out = r.output as { documents: Array<Record<string, unknown>>; not_found: string[] };
    expect(out.documents.map((d) => d.file_id)).toEqual([policy, failed]);
    expect(out.documents[0]).toMatchObject({ name: "policy.pdf", file_type: "pdf", status: "success", chunk_count: 4, knowledge_base_id: kbA, knowledge_base_name: "Manuals", failure_reason: null, embedding_status: "skipped" });
    expect(out.documents[1]).toMatchObject({ status: "failed", failure_reason: "The PDF is encrypted." });
    expect(out.not_found).toEqual([fileB, "missing"]);
    expect(await callTool("get_document_info", { file_ids: [] }, ctxA)).toMatchObject({ message: "file_ids: give at least one file id" });
    expect(await callTool("get_document_info", { file_ids: Array.from({ length: 21 }, (_, i) => `f${i}`) }, ctxA)).toMatchObject({ message: "file_ids: at most 20 file_ids per call" });
    expect(await callTool("get_document_info", { file_ids: ["../etc"] }, ctxA)).toMatchObject({ code: "INVALID_PARAMS" });
  });

  it("list_knowledge_chunks: pages in document order; foreign files look missing", async () => {
    const page = async (offset: number, limit: number) => {
      const r = await callTool("list_knowledge_chunks", { file_id: manual, offset, limit }, ctxA);
      if (r.status !== "ok") throw new Error(r.message);
      return r.output as { total: number; chunks: Array<{ chunk_index: number; heading_path: string }>; next_offset: number | null; reason: string | null };
    };
    const p1 = await page(3, 5);
    expect(p1.total).toBe(12);
    expect(p1.chunks.map((c) => c.chunk_index)).toEqual([3, 4, 5, 6, 7]);
    expect(p1.chunks[2]!.heading_path).toBe("Manual / 5");
    expect(p1.next_offset).toBe(8);
    const last = await page(10, 50);
    expect(last.chunks.map((c) => c.chunk_index)).toEqual([10, 11]);
    expect(last.next_offset).toBeNull();
    const past = await page(40, 5);
    expect(past.chunks).toEqual([]);
    expect(past.reason).toMatch(/past the end: the document has 12 chunks/);
    expect(await callTool("list_knowledge_chunks", { file_id: fileB }, ctxA)).toMatchObject({ code: "FILE_NOT_FOUND" });
    const notReady = await callTool("list_knowledge_chunks", { file_id: failed }, ctxA);
    expect((notReady as { output: { reason: string } }).output.reason).toMatch(/status: failed/);
    expect(await callTool("list_knowledge_chunks", { file_id: manual, limit: 51 }, ctxA)).toMatchObject({ message: "limit: limit must be at most 50" });
    expect(await callTool("list_knowledge_chunks", { file_id: manual, offset: -1 }, ctxA)).toMatchObject({ message: "offset: offset must be 0 or more" });
  });

  it("a tool call never outlives its caller's signal", async () => {
    const ac = new AbortController();
    ac.abort(new Error("stopped"));
    await expect(callTool("grep_chunks", { keywords: ["warranty"] }, { ...ctxA, signal: ac.signal })).rejects.toThrow("stopped");
  });
});
