import { describe, expect, it } from "vitest";
import { MalformedProviderResponse, normalizeMetadata, normalizeProviderResults } from "../normalize";
import { ProviderRegistry } from "../providers/registry";
import { ProviderValidationError, validateProvider, type KnowledgeProvider } from "../providers/protocol";

const desc = { key: "wiki", label: "Wiki", capabilities: { filters: false, scores: true, citations: true } };

describe("normalizeProviderResults", () => {
  it("requires id and content, drops empties, dedupes by id, truncates content", () => {
    const { hits, dropped } = normalizeProviderResults(
      {
        results: [
          { id: "1", content: "  first  " },
          { id: "1", content: "duplicate id" },
          { id: "", content: "no id" },
          { content: "missing id" },
          { id: "2" },
          { id: "3", content: "   \n\t " },
          { id: 4, content: "x".repeat(5000) },
          null,
          "string record",
        ],
      },
      desc,
      { maxContentChars: 100 },
    );
    expect(hits.map((h) => h.id)).toEqual(["wiki:1", "wiki:4"]);
    expect(hits[0]!.content).toBe("first");
    expect(hits[1]!.content).toHaveLength(101); // 100 chars + ellipsis
    expect(dropped).toBe(7);
  });

  it("accepts a bare array and refuses other envelopes", () => {
    expect(normalizeProviderResults([{ id: "a", content: "b" }], desc).hits).toHaveLength(1);
    for (const bad of [null, "x", 42, { items: [] }, { results: "no" }]) {
      expect(() => normalizeProviderResults(bad, desc)).toThrow(MalformedProviderResponse);
    }
  });

  it("keeps public http(s) URIs only, and provenance + untrusted on every record", () => {
    const { hits } = normalizeProviderResults(
      [
        { id: "a", content: "A", source: { id: "doc-a", title: "Doc A", uri: "https://docs.example.com/a", locator: "section=2" } },
        { id: "b", content: "B", source: { id: "doc-b", uri: "http://127.0.0.1:8080/secret" } },
        { id: "c", content: "C", source: { uri: "https://user:pw@example.com/" } },
        { id: "d", content: "D", source: { uri: "javascript:alert(1)" } },
      ],
      desc,
    );
    expect(hits.map((h) => h.sourceUri)).toEqual(["https://docs.example.com/a", null, null, null]);
    expect(hits[0]).toMatchObject({ sourceType: "wiki", sourceId: "doc-a", sourceName: "Doc A", untrusted: true, metadata: { locator: "section=2" } });
    expect(hits[1]).toMatchObject({ sourceId: "doc-b", sourceName: "Wiki" });
    for (const h of hits) expect(h.untrusted).toBe(true);
    // A provider without the citations capability never yields URIs.
    const noCite = normalizeProviderResults([{ id: "a", content: "A", source: { uri: "https://example.com/" } }], {
      ...desc,
      capabilities: { ...desc.capabilities, citations: false },
    });
    expect(noCite.hits[0]!.sourceUri).toBeNull();
  });

  it("limits metadata to bounded primitives and strips control/bidi characters", () => {
    const md = normalizeMetadata({
      ok: "v",
      n: 3,
      b: false,
      z: null,
      nested: { a: 1 },
      arr: [1],
      fn: () => 1,
      inf: Infinity,
      "bad key!": "x",
      long: "y".repeat(1000),
      __proto__: "p",
    });
    expect(Object.keys(md).sort()).toEqual(["b", "long", "n", "ok", "z"]);
    expect((md.long as string).length).toBeLessThanOrEqual(257);
    const many = normalizeMetadata(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i])));
    expect(Object.keys(many)).toHaveLength(16);
    const { hits } = normalizeProviderResults([{ id: "a", content: "safe\u202etext\u0007" }], desc);
    expect(hits[0]!.content).toBe("safetext");
  });
});

describe("provider protocol validation and registry", () => {
  const good = (key = "wiki"): KnowledgeProvider => ({
    describe: () => ({ protocolVersion: 1, key, label: "Wiki", capabilities: { filters: true, scores: true, citations: false } }),
    retrieve: async () => [],
  });

  it("accepts a v1 provider and fills list_documents", () => {
    expect(validateProvider(good()).capabilities).toEqual({ filters: true, scores: true, citations: false, list_documents: false });
  });

  it.each([
    ["version 2", { protocolVersion: 2, key: "x", label: "X", capabilities: { filters: true, scores: true, citations: true } }, /protocolVersion 2/],
    ["bad key", { protocolVersion: 1, key: "Bad_Key", label: "X", capabilities: { filters: true, scores: true, citations: true } }, /key "Bad_Key"/],
    ["no capabilities", { protocolVersion: 1, key: "x", label: "X" }, /capabilities must be an object/],
    ["non-boolean capability", { protocolVersion: 1, key: "x", label: "X", capabilities: { filters: "yes", scores: true, citations: true } }, /capabilities.filters/],
  ])("refuses %s with a clear message", (_n, description, msg) => {
    expect(() => validateProvider({ describe: () => description, retrieve: async () => [] })).toThrow(msg);
  });

  it("refuses objects without retrieve/describe", () => {
    expect(() => validateProvider({ describe: good().describe })).toThrow(ProviderValidationError);
    expect(() => validateProvider(null)).toThrow(ProviderValidationError);
  });

  it("registry keeps the built-in first, refuses duplicate keys and closes once", async () => {
    let closes = 0;
    const builtin = good("knowledge-base");
    const ext = { ...good("wiki"), close: () => void closes++ };
    const reg = new ProviderRegistry(builtin);
    reg.register(ext);
    expect(() => reg.register(good("wiki"))).toThrow(/registered twice/);
    expect(reg.list().map((e) => e.description.key)).toEqual(["knowledge-base", "wiki"]);
    expect(reg.external().map((e) => e.description.key)).toEqual(["wiki"]);
    await Promise.all([reg.close(), reg.close()]);
    await reg.close();
    expect(closes).toBe(1);
    expect(() => reg.register(good("late"))).toThrow(/closed/);
  });
});
