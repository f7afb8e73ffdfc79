import { describe, expect, it } from "vitest";
import { retrieve } from "../core";
import { extractRecords, normalizeListing, ProviderReportedError } from "../normalize";
import { validateProvider, type KnowledgeProvider, type ProviderRequest } from "../providers/protocol";
import { createBuiltinKbProvider } from "../providers/builtin-kb";
import { ProviderRegistry } from "../providers/registry";
import { externalSourcesFor } from "../runtime";

// Fake providers only (seed 002: no provider-specific fixtures in core tests).
function fake(key: string, seen: ProviderRequest[] = [], extra: Partial<KnowledgeProvider> = {}): KnowledgeProvider {
  return {
    describe: () => ({ protocolVersion: 1, key, label: key, capabilities: { filters: false, scores: true, citations: false, list_documents: !!extra.listDocuments } }),
    retrieve: async (r) => {
      seen.push(r);
      return { results: [{ id: `${key}-1`, content: `hit from ${key}`, score: 0.7 }] };
    },
    ...extra,
  };
}

const ctx = () => ({ ownerId: "o", sessionId: "s", turnId: "t", traceId: "x", signal: new AbortController().signal, readableKnowledgeIds: new Set<string>() });

describe("wire format (protocol v1 over HTTP)", () => {
  it("reads the app's envelope, a bare {results} and a bare array alike", () => {
    const rec = { id: "a", content: "x" };
    expect(extractRecords({ code: 0, msg: "success", data: { protocolVersion: 1, results: [rec] } })).toEqual([rec]);
    expect(extractRecords({ results: [rec] })).toEqual([rec]);
    expect(extractRecords([rec])).toEqual([rec]);
  });
  it("turns a non-zero envelope code into the provider's own error, without its message", () => {
    expect(() => extractRecords({ code: "PROVIDER_UNAVAILABLE", msg: "secret internals", data: null })).toThrow(ProviderReportedError);
    try {
      extractRecords({ code: "FORBIDDEN", msg: "secret internals", data: null });
    } catch (e) {
      expect((e as ProviderReportedError).code).toBe("FORBIDDEN");
      expect((e as Error).message).not.toContain("secret");
    }
  });
  it("an envelope reporting PROVIDER_UNAVAILABLE marks that source unavailable in a turn", async () => {
    const p = { ...fake("peer"), retrieve: async () => ({ code: "PROVIDER_UNAVAILABLE", msg: "down", data: null }) };
    const res = await retrieve({ query: "q", topK: 3, knowledgeBaseIds: [] }, ctx(), { externalProviders: [{ provider: p, description: validateProvider(p) }] });
    expect(res.sources[1]).toEqual({ source_type: "peer", status: "unavailable", count: 0 });
  });
});

describe("bindings reach providers with every locating field", () => {
  it("groups by provider, passes document/folder targets, and all_accessible asks for everything", async () => {
    const seenA: ProviderRequest[] = [];
    const seenB: ProviderRequest[] = [];
    const reg = new ProviderRegistry();
    reg.register(fake("alpha", seenA));
    reg.register(fake("beta", seenB));
    const sources = externalSourcesFor(reg, [
      { provider: "alpha", mode: "explicit", id: "kb-1", target_type: "document", node_id: "document:n1", document_id: "n1", parent_id: "f1" },
      { provider: "alpha", mode: "explicit", id: "kb-1", target_type: "document", node_id: "document:n2", document_id: "n2", parent_id: null },
      { provider: "alpha", mode: "explicit", id: "kb-2", target_type: "folder", node_id: "f9", document_id: null, parent_id: null },
      { provider: "beta", mode: "explicit", id: "x", target_type: "knowledge_base" },
      { provider: "beta", mode: "all_accessible", id: null, target_type: "knowledge_base" },
    ]);
    await retrieve({ query: "q", topK: 3, knowledgeBaseIds: [] }, ctx(), { externalProviders: sources });
    expect(seenA[0]).toMatchObject({
      knowledgeBaseIds: ["kb-1", "kb-2"],
      targets: [
        { id: "kb-1", target_type: "document", node_id: "document:n1", document_id: "n1", parent_id: "f1" },
        { id: "kb-1", target_type: "document", node_id: "document:n2", document_id: "n2", parent_id: null },
        { id: "kb-2", target_type: "folder", node_id: "f9", document_id: null, parent_id: null },
      ],
    });
    expect(seenB[0]!.knowledgeBaseIds).toEqual([]);
    expect(seenB[0]!.targets).toBeUndefined();
  });

  it("a binding whose provider is gone is asked as 'unavailable', not dropped", async () => {
    const reg = new ProviderRegistry();
    const res = await retrieve({ query: "q", topK: 3, knowledgeBaseIds: [] }, ctx(), {
      externalProviders: externalSourcesFor(reg, [{ provider: "gone", mode: "explicit", id: "x", target_type: "knowledge_base" }]),
    });
    expect(res.sources[1]).toEqual({ source_type: "gone", status: "unavailable", count: 0 });
  });
});

describe("listing capability", () => {
  it("a provider claiming list_documents must implement listDocuments", () => {
    const liar: KnowledgeProvider = {
      describe: () => ({ protocolVersion: 1, key: "liar", label: "Liar", capabilities: { filters: false, scores: true, citations: false, list_documents: true } }),
      retrieve: async () => [],
    };
    expect(() => validateProvider(liar)).toThrow(/listDocuments\(\) is missing/);
    expect(validateProvider(fake("lister", [], { listDocuments: async () => ({ items: [], next_cursor: null }) })).capabilities.list_documents).toBe(true);
  });

  it("normalizes a listing page: bounded items, known types, opaque cursor, envelope accepted", () => {
    const page = normalizeListing(
      {
        code: 0,
        msg: "success",
        data: {
          items: [
            { id: "f", name: "Folder", type: "folder", source_id: "s" },
            { id: "d", title: "Doc", type: "weird", metadata: { n: 1, nested: { x: 1 } } },
            { id: "", name: "no id" },
            { id: "d", name: "duplicate" },
            "junk",
          ],
          next_cursor: "c".repeat(600),
        },
      },
      10,
    );
    expect(page.items).toEqual([
      { id: "f", name: "Folder", type: "folder", source_id: "s", parent_id: null, node_id: null, metadata: {} },
      { id: "d", name: "Doc", type: "document", source_id: "", parent_id: null, node_id: null, metadata: { n: 1 } },
    ]);
    expect(page.next_cursor).toBeNull();
    expect(() => normalizeListing({ nope: 1 }, 10)).toThrow(/items/);
  });

  it("the built-in entry backs list_documents with a listing and has no retrieve() wrapper (the core searches the KB itself)", async () => {
    const queries: unknown[][] = [];
    const db = {
      $queryRawUnsafe: (async (...args: unknown[]) => {
        queries.push(args);
        return [{ id: "f1", name: "a.pdf", status: "success", file_type: "pdf" }];
      }) as never,
    };
    const builtin = createBuiltinKbProvider({ getDb: async () => db, readableKnowledgeIds: () => new Set(["kb-1"]) });
    const reg = new ProviderRegistry(builtin);
    expect(reg.get("knowledge-base")?.description.capabilities.list_documents).toBe(true);
    expect("retrieve" in builtin).toBe(false);
    const page = await builtin.listDocuments!({ sourceId: "kb-1", parentId: null, cursor: null, limit: 10 }, ctx());
    expect(page).toEqual({ items: [{ id: "f1", name: "a.pdf", type: "document", source_id: "kb-1", parent_id: null, node_id: null, metadata: { status: "success", file_type: "pdf" } }], next_cursor: null });
    // A KB outside the caller's access targets lists as empty, without a query.
    const n = queries.length;
    expect(await builtin.listDocuments!({ sourceId: "kb-other", parentId: null, cursor: null, limit: 10 }, ctx())).toEqual({ items: [], next_cursor: null });
    expect(queries.length).toBe(n);
  });
});
