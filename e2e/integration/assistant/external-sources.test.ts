import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "../../support/fake-provider-server";
import { readSse, seedIndexedFile } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

// External knowledge sources through the app's real routes (issue 18): a generic fake provider
// over loopback HTTP (the test-only allowance is on), bound to conversations, searched in turns,
// listed, opened and unbound; and every hostile answer changing only its own source's status.
type App = Awaited<ReturnType<typeof startIntegrationApp>>;
type Ref = Record<string, unknown> & { source_type: string; source_uri: string | null; source_name: string };

const TIMEOUT_MS = 1000;
// How long the fake provider's "slow" mode takes to answer (e2e/support/fake-provider-server.ts).
const SLOW_PROVIDER_MS = 5000;

describe("external knowledge sources", () => {
  let app: App;
  let fake: FakeProvider;
  let c: Client;
  let kb: string;

  beforeAll(async () => {
    fake = await startFakeProvider();
    app = await startIntegrationApp({
      AUTH_MODE: "local",
      ALLOW_LOOPBACK_PROVIDERS: "true",
      PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS),
      RETRIEVAL_MIN_SCORE: "0",
      DOCS_TOKEN: "docs-secret-token",
      EXTERNAL_PROVIDERS: JSON.stringify([
        {
          type: "http",
          key: "docs",
          label: "Docs",
          url: `${fake.baseUrl}/retrieve`,
          listUrl: `${fake.baseUrl}/documents`,
          healthUrl: `${fake.baseUrl}/health`,
          openUrl: `${fake.baseUrl}/doc/{source_id}`,
          tokenEnv: "DOCS_TOKEN",
        },
        { type: "http", key: "notes", label: "Notes", url: `${fake.baseUrl}/retrieve` },
      ]),
    });
    c = new Client(app.baseUrl);
    kb = (await c.json<{ id: string }>("POST", "/v1/knowledges", { name: "Built-in" })).data.id;
    await seedIndexedFile(kb, "release.md", [
      { content: "Release approvers are listed in the built-in guide; two approvers sign every release.", headingPath: "Release" },
    ]);
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });
  beforeEach(() => {
    fake.setMode("ok");
    fake.setListingFails(false);
    fake.calls.length = 0;
  });

  const chat = async (body: Record<string, unknown>) => readSse(await c.request("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, body));
  const newConversation = async () => {
    const { events } = await chat({ message: "hello release", answer_mode: "references_only" });
    return events[0]!.data.conversation_id as string;
  };
  const refsPath = (conv: string) => `/v1/knowledges/${kb}/assistant/conversations/${conv}/external-knowledge-refs`;
  const bind = (conv: string, refs: unknown[]) => c.json<{ items: Array<Record<string, unknown>> }>("POST", refsPath(conv), { refs });
  const list = async (conv: string) => (await c.json<{ items: Array<Record<string, unknown>> }>("GET", refsPath(conv))).data.items;
  const remove = (conv: string, ref: unknown) => c.json<{ removed: number }>("POST", `${refsPath(conv)}/remove`, { ref });
  const referencesOf = (events: Array<{ event: string; data: Record<string, unknown> }>) =>
    ((events.find((e) => e.event === "references")?.data.items ?? []) as Ref[]);
  const sourcesOf = (events: Array<{ event: string; data: Record<string, unknown> }>) =>
    (events.filter((e) => e.event === "retrieval").at(-1)!.data.sources as Array<{ source_type: string; status: string; count: number }>);

  it("lists the configured providers with capabilities and health, never their URLs or tokens", async () => {
    const res = await c.json<{ items: Array<Record<string, unknown>> }>("GET", "/v1/external-sources?refresh=true");
    expect(res.code).toBe(0);
    expect(res.data.items.map((i) => [i.key, i.builtin, (i.capabilities as Record<string, boolean>).list_documents, i.openable, i.health])).toEqual([
      ["knowledge-base", true, true, false, "ready"],
      ["docs", false, true, true, "ready"],
      ["notes", false, false, false, "ready"],
    ]);
    const text = JSON.stringify(res.data);
    expect(text).not.toContain(fake.baseUrl);
    expect(text).not.toContain("docs-secret-token");
    expect(fake.calls.some((call) => call.path === "/health" && call.auth === "Bearer docs-secret-token")).toBe(true);
  });

  it("binds a whole source, a folder and two documents of one source as four bindings, and removes exactly the one named", async () => {
    const conv = await newConversation();
    const res = await bind(conv, [
      { provider: "docs", id: "handbook" },
      { provider: "docs", id: "handbook", target_type: "folder", node_id: "folder-ops" },
      { provider: "docs", id: "handbook", target_type: "document", node_id: "document:doc-release", document_id: "doc-release" },
      { provider: "docs", id: "handbook", target_type: "document", node_id: "document:doc-oncall", document_id: "doc-oncall", parent_id: "folder-ops" },
    ]);
    expect(res.code).toBe(0);
    const items = await list(conv);
    expect(items).toHaveLength(4);
    // Defaults of seed 002, and the names come from the provider: a document keeps the source's name.
    expect(items[0]).toMatchObject({ provider: "docs", mode: "explicit", id: "handbook", target_type: "knowledge_base", name: "Team handbook", target_name: "" });
    expect(items[1]).toMatchObject({ target_type: "folder", node_id: "folder-ops", name: "Team handbook", target_name: "Operations" });
    expect(items[2]).toMatchObject({ target_type: "document", document_id: "doc-release", name: "Team handbook", target_name: "Release checklist" });
    expect(items[3]).toMatchObject({ target_type: "document", document_id: "doc-oncall", parent_id: "folder-ops", target_name: "On-call rota" });

    const removed = await remove(conv, { provider: "docs", mode: "explicit", id: "handbook", target_type: "document", node_id: "document:doc-release", document_id: "doc-release" });
    expect(removed.data.removed).toBe(1);
    expect((await list(conv)).map((r) => r.document_id ?? r.node_id ?? r.target_type)).toEqual(["knowledge_base", "folder-ops", "doc-oncall"]);
    // Binding the same target again updates it instead of adding a row.
    await bind(conv, [{ provider: "docs", id: "handbook" }]);
    expect(await list(conv)).toHaveLength(3);
  });

  it("refuses bad bindings with clear codes", async () => {
    const conv = await newConversation();
    const cases: Array<[unknown, string]> = [
      [{ provider: "nobody", id: "x" }, "PROVIDER_NOT_FOUND"],
      [{ provider: "knowledge-base", id: kb }, "PROVIDER_NOT_FOUND"],
      [{ provider: "docs", id: "no-such-source" }, "EXTERNAL_SOURCE_NOT_FOUND"],
      [{ provider: "docs", id: "handbook", target_type: "document", document_id: "doc-deploy" }, "EXTERNAL_SOURCE_NOT_FOUND"],
      [{ provider: "docs" }, "INVALID_PARAMS"],
      [{ provider: "docs", id: "handbook", target_type: "document" }, "INVALID_PARAMS"],
      [{ provider: "docs", id: "https://evil.example.com/x" }, "INVALID_PARAMS"],
      [{ provider: "docs", id: "hand\u0000book" }, "INVALID_PARAMS"],
      [{ provider: "docs", id: "handbook", name: "<script>alert(1)</script>", token: "x" }, "INVALID_PARAMS"],
      [{ provider: "Docs!", id: "handbook" }, "INVALID_PARAMS"],
      [{ provider: "docs", id: 42 }, "INVALID_PARAMS"],
    ];
    for (const [ref, code] of cases) expect((await bind(conv, [ref])).code, JSON.stringify(ref)).toBe(code);
    expect((await c.json("POST", refsPath(conv), "{not json")).code).toBe("INVALID_PARAMS");
    expect((await c.json("POST", refsPath("00000000-0000-0000-0000-000000000000"), { refs: [{ provider: "docs", id: "handbook" }] })).code).toBe("CONVERSATION_NOT_FOUND");
    fake.setListingFails(true);
    expect((await bind(conv, [{ provider: "docs", id: "handbook" }])).code).toBe("PROVIDER_UNAVAILABLE");
    expect(await list(conv)).toEqual([]);
    // A provider without a listing cannot be asked: its binding is kept as given.
    expect((await bind(conv, [{ provider: "notes", mode: "all_accessible" }])).code).toBe(0);
  });

  it("sends a document binding's locating fields to the provider, which then searches that document only", async () => {
    const conv = await newConversation();
    await bind(conv, [{ provider: "docs", id: "handbook", target_type: "document", node_id: "document:doc-backup", document_id: "doc-backup", parent_id: "folder-ops" }]);
    fake.calls.length = 0;
    const { events } = await chat({ message: "release approvers backup restore drill", conversation_id: conv, answer_mode: "references_only" });
    const call = fake.calls.find((x) => x.path === "/retrieve")!;
    expect(call.auth).toBe("Bearer docs-secret-token");
    expect(call.body).toMatchObject({
      knowledgeBaseIds: ["handbook"],
      targets: [{ id: "handbook", target_type: "document", node_id: "document:doc-backup", document_id: "doc-backup", parent_id: "folder-ops" }],
    });
    const external = referencesOf(events).filter((r) => r.source_type === "docs");
    expect(external.map((r) => r.source_name)).toEqual(["Backup policy"]);
  });

  it("merges built-in and external hits in one turn by score, with provenance, locator and metadata, and no raw URL in the snapshot", async () => {
    const conv = await newConversation();
    await bind(conv, [{ provider: "docs", id: "handbook" }]);
    const { events } = await chat({ message: "release approvers rollback plan", conversation_id: conv, answer_mode: "references_only" });
    expect(sourcesOf(events)).toEqual([
      { source_type: "knowledge-base", status: "ok", count: 1 },
      { source_type: "docs", status: "ok", count: expect.any(Number) },
    ]);
    const refs = referencesOf(events);
    const scores = refs.map((r) => r.score as number);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(refs.map((r) => r.source_type)).toContain("knowledge-base");
    const ext = refs.find((r) => r.source_type === "docs")!;
    expect(ext).toMatchObject({
      source_id: "doc-release",
      source_name: "Release checklist",
      source_uri: "ext://docs/doc-release",
      locator: "handbook/-/doc-release#p1",
      metadata: { source_id: "handbook", folder: null, words: expect.any(Number) },
    });
    const msgs = await c.json<{ items: Array<{ role: string; references: Ref[] | null }> }>("GET", `/v1/knowledges/${kb}/assistant/conversations/${conv}/messages`);
    const snapshot = msgs.data.items.at(-1)!.references!;
    expect(snapshot.find((r) => r.source_type === "docs")).toMatchObject({ source_uri: "ext://docs/doc-release", locator: "handbook/-/doc-release#p1" });
    expect(JSON.stringify(snapshot)).not.toContain("provider.example.com");

    // Opening it resolves through the provider at open time; a provider without an opener has nothing to open.
    const open = await c.json<{ url: string }>("GET", "/v1/external-sources/docs/open?source_id=doc-release");
    expect(open.data.url).toBe(`${fake.baseUrl}/doc/doc-release`);
    expect((await c.json("GET", "/v1/external-sources/notes/open?source_id=doc-release")).code).toBe("EXTERNAL_SOURCE_NOT_FOUND");
    expect((await c.json("GET", "/v1/external-sources/nobody/open?source_id=x")).code).toBe("PROVIDER_NOT_FOUND");
  });

  it("unbinding affects later turns only: the provider is not asked again and the old message keeps its references", async () => {
    const conv = await newConversation();
    await bind(conv, [{ provider: "docs", id: "handbook" }]);
    const first = await chat({ message: "release approvers rollback", conversation_id: conv, answer_mode: "references_only" });
    expect(referencesOf(first.events).some((r) => r.source_type === "docs")).toBe(true);
    expect((await remove(conv, { provider: "docs", mode: "explicit", id: "handbook", target_type: "knowledge_base" })).data.removed).toBe(1);
    fake.calls.length = 0;
    const second = await chat({ message: "release approvers rollback", conversation_id: conv, answer_mode: "references_only" });
    expect(fake.calls.filter((x) => x.path === "/retrieve")).toEqual([]);
    expect(sourcesOf(second.events).map((s) => s.source_type)).toEqual(["knowledge-base"]);
    const msgs = await c.json<{ items: Array<{ role: string; references: Ref[] | null }> }>("GET", `/v1/knowledges/${kb}/assistant/conversations/${conv}/messages`);
    const answers = msgs.data.items.filter((m) => m.role === "assistant");
    expect(answers.at(-2)!.references!.some((r) => r.source_type === "docs")).toBe(true);
    expect(answers.at(-1)!.references!.some((r) => r.source_type === "docs")).toBe(false);
  });

  it("binds through the chat request of a new conversation too (validated by the provider first)", async () => {
    const bad = await c.json("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, {
      message: "release",
      external_knowledge_refs: [{ provider: "docs", id: "no-such-source" }],
    });
    expect(bad.code).toBe("EXTERNAL_SOURCE_NOT_FOUND");
    const { events } = await chat({ message: "release approvers rollback", answer_mode: "references_only", external_knowledge_refs: [{ provider: "docs", id: "handbook" }] });
    expect(referencesOf(events).some((r) => r.source_type === "docs")).toBe(true);
    expect(await list(events[0]!.data.conversation_id as string)).toHaveLength(1);
  });

  it.each([
    ["error", "error"],
    ["envelope-error", "error"],
    ["bad-json", "error"],
    ["huge", "error"],
    ["slow", "timeout"],
    ["empty", "empty"],
  ] as const)("a provider answering %s changes only its own status; the turn answers from the built-in KB in time", async (mode, status) => {
    const conv = await newConversation();
    await bind(conv, [{ provider: "docs", id: "handbook" }]);
    fake.setMode(mode);
    const t0 = Date.now();
    const { events } = await chat({ message: "release approvers", conversation_id: conv });
    // SPEC §8 failure isolation: the turn does not wait for the provider. The slow one answers
    // after 5 s and its timeout is TIMEOUT_MS (1 s), so a turn done before 5 s was not held by it;
    // a bound closer to the timeout measured the machine's load instead (2.5 s at load 8).
    expect(Date.now() - t0).toBeLessThan(SLOW_PROVIDER_MS);
    expect(sourcesOf(events)).toEqual([
      { source_type: "knowledge-base", status: "ok", count: 1 },
      { source_type: "docs", status, count: 0 },
    ]);
    expect(events.at(-1)!.event).toBe("done");
    expect(referencesOf(events).map((r) => r.source_type)).toEqual(["knowledge-base"]);
  });

  it("bounds 10,000 results, bad scores and unsafe URIs", async () => {
    const conv = await newConversation();
    await bind(conv, [{ provider: "docs", id: "handbook" }]);
    fake.setMode("many");
    const many = await chat({ message: "release approvers", conversation_id: conv, top_k: 5, answer_mode: "references_only" });
    expect(referencesOf(many.events)).toHaveLength(5);

    fake.setMode("bad-scores");
    const scored = referencesOf((await chat({ message: "release approvers", conversation_id: conv, answer_mode: "references_only" })).events);
    expect(scored.length).toBeGreaterThan(0);
    for (const r of scored) {
      expect(r.score as number).toBeGreaterThanOrEqual(0);
      expect(r.score as number).toBeLessThanOrEqual(1);
    }

    fake.setMode("bad-uris");
    const { events } = await chat({ message: "release approvers", conversation_id: conv, answer_mode: "references_only" });
    const ext = referencesOf(events).filter((r) => r.source_type === "docs");
    expect(ext).toHaveLength(4);
    for (const r of ext) expect(r.source_uri).toMatch(/^ext:\/\/docs\//);
    expect(JSON.stringify(events)).not.toMatch(/javascript:|file:\/\/|user:pw|10\.0\.0\.5/);
  });

  it("lists documents per provider and per source; a provider without the capability is 'unsupported', a failing one only its own entry", async () => {
    const top = await c.json<{ items: Array<{ id: string; type: string }>; pagination_scope: string; next_cursor: string | null }>("GET", "/v1/external-sources/docs/documents");
    expect(top.data.pagination_scope).toBe("per_provider");
    expect(top.data.items.map((i) => [i.id, i.type])).toEqual([["handbook", "knowledge_base"], ["runbooks", "knowledge_base"]]);
    const paged = await c.json<{ items: Array<{ id: string }>; next_cursor: string | null }>("GET", "/v1/external-sources/docs/documents?source_id=handbook&limit=1");
    expect(paged.data.items.map((i) => i.id)).toEqual(["folder-ops"]);
    const next = await c.json<{ items: Array<{ id: string }>; next_cursor: string | null }>(`GET`, `/v1/external-sources/docs/documents?source_id=handbook&limit=1&cursor=${paged.data.next_cursor}`);
    expect(next.data.items.map((i) => i.id)).toEqual(["doc-release"]);
    expect((await c.json("GET", "/v1/external-sources/notes/documents")).code).toBe("LISTING_UNSUPPORTED");
    expect((await c.json("GET", "/v1/external-sources/nobody/documents")).code).toBe("PROVIDER_NOT_FOUND");
    const builtin = await c.json<{ items: Array<{ name: string }> }>("GET", `/v1/external-sources/knowledge-base/documents?source_id=${kb}`);
    expect(builtin.data.items.map((i) => i.name)).toEqual(["release.md"]);

    const conv = await newConversation();
    await bind(conv, [{ provider: "docs", id: "handbook" }, { provider: "notes", id: "anything" }]);
    type Agg = { pagination_scope: string; sources: Array<{ source_type: string; status: string; items: Array<{ id: string }> }> };
    const agg = await c.json<Agg>("GET", `/v1/knowledges/${kb}/assistant/sources?conversation_id=${conv}`);
    expect(agg.data.pagination_scope).toBe("per_source");
    expect(agg.data.sources.map((s) => [s.source_type, s.status, s.items.length])).toEqual([
      ["knowledge-base", "ok", 1],
      ["docs", "ok", 2],
      ["notes", "unsupported", 0],
    ]);
    fake.setListingFails(true);
    const failing = await c.json<Agg>("GET", `/v1/knowledges/${kb}/assistant/sources?conversation_id=${conv}`);
    expect(failing.code).toBe(0);
    expect(failing.data.sources.map((s) => [s.source_type, s.status])).toEqual([
      ["knowledge-base", "ok"],
      ["docs", "error"],
      ["notes", "unsupported"],
    ]);
    // Unbinding keeps working while the provider fails.
    expect((await remove(conv, { provider: "docs", id: "handbook" })).data.removed).toBe(1);
  });

  it("a bound provider that is no longer configured reports its source unavailable; the turn still answers", async () => {
    const conv = await newConversation();
    // Stored as if bound while a provider "gone" was configured.
    const { getDb } = await import("@/lib/db/client");
    const db = await getDb();
    await db.externalKnowledgeRef.create({
      data: { id: "gone-ref", conversationId: conv, provider: "gone", mode: "explicit", refId: "x", targetType: "knowledge_base", targetKey: "gone\u001fexplicit\u001fx\u001fknowledge_base\u001f\u001f" },
    });
    const { events } = await chat({ message: "release approvers", conversation_id: conv });
    expect(sourcesOf(events)).toEqual([
      { source_type: "knowledge-base", status: "ok", count: 1 },
      { source_type: "gone", status: "unavailable", count: 0 },
    ]);
    expect(events.at(-1)!.event).toBe("done");
  });
});
