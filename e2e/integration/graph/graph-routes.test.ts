import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readableKnowledgeIds } from "@/lib/auth/access";
import { sampleDir } from "@/lib/ingestion/sample";
import { queryKnowledgeGraphTool } from "@/lib/tools/query-knowledge-graph";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

async function drain() {
  const { runPendingJobs } = await import("@/lib/ingestion/runner");
  const { getDb } = await import("@/lib/db/client");
  await runPendingJobs({ db: await getDb() });
}

interface Entity {
  id: string;
  name: string;
  type: string;
  mention_count: number;
}
interface Relation {
  id: string;
  source_id: string;
  target_id: string;
  weight: number;
  support_count: number;
}
interface Passage {
  chunk_id: string;
  file_id: string;
  file_name: string;
  page_start: number | null;
  quote: string;
}

// The graph's HTTP routes and the query_knowledge_graph tool, with two users in password mode.
describe("knowledge graph routes and tool", () => {
  let app: App;
  let a: Client;
  let b: Client;
  let kbA: string;
  let kbB: string;
  let userA: string;
  let userB: string;
  let yunjian: Entity;

  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "password" });
    a = new Client(app.baseUrl);
    b = new Client(app.baseUrl);
    userA = (await a.signUp({ email: "ga@x.test", password: "password-a" })).data.user.id;
    userB = (await b.signUp({ email: "gb@x.test", password: "password-b" })).data.user.id;
    kbA = (await a.json<{ id: string }>("POST", "/v1/knowledges", { name: "A" })).data.id;
    kbB = (await b.json<{ id: string }>("POST", "/v1/knowledges", { name: "B" })).data.id;
    const form = new FormData();
    form.append("files", new Blob([readFileSync(path.join(sampleDir(), "云笺产品手册.pdf"))]), "云笺产品手册.pdf");
    expect((await a.json("POST", `/v1/knowledges/${kbA}/files`, form)).code).toBe(0);
    const formB = new FormData();
    formB.append("files", new Blob(["B 的笔记：星河计划由北京星河科技有限公司负责。"]), "b.txt");
    expect((await b.json("POST", `/v1/knowledges/${kbB}/files`, formB)).code).toBe(0);
    await drain();
  });
  afterAll(() => app.close());

  it("overview, search, neighbourhood, entity mentions and relation passages", async () => {
    const o = await a.json<{ status: string; enabled: boolean; entity_count: number; files: { graph_status: string }[] }>("GET", `/v1/knowledges/${kbA}/graph`);
    expect(o).toMatchObject({ code: 0, msg: "success", data: { status: "ready", enabled: true, model_enabled: false, model_available: false } });
    expect(o.data.entity_count).toBeGreaterThan(5);
    expect(o.data.files.map((f) => f.graph_status)).toEqual(["success"]);

    const s = await a.json<{ items: Entity[] }>("GET", `/v1/knowledges/${kbA}/graph/entities?q=${encodeURIComponent("云笺")}`);
    expect(s.code).toBe(0);
    yunjian = s.data.items[0]!;
    expect(yunjian).toMatchObject({ name: "云笺", type: "product" });

    const hood = await a.json<{ center: Entity; entities: Entity[]; relations: Relation[] }>("GET", `/v1/knowledges/${kbA}/graph/entities/${yunjian.id}/neighbourhood?depth=1&limit=5`);
    expect(hood.code).toBe(0);
    expect(hood.data.center.id).toBe(yunjian.id);
    expect(hood.data.relations.length).toBe(5);
    for (const r of hood.data.relations) expect([r.source_id, r.target_id]).toContain(yunjian.id);
    const deeper = await a.json<{ relations: Relation[] }>("GET", `/v1/knowledges/${kbA}/graph/entities/${yunjian.id}/neighbourhood?depth=2&limit=5`);
    expect(deeper.data.relations.length).toBeGreaterThan(5);

    const detail = await a.json<{ entity: Entity; mentions: Passage[] }>("GET", `/v1/knowledges/${kbA}/graph/entities/${yunjian.id}`);
    expect(detail.data.entity.mention_count).toBeGreaterThan(3);
    expect(detail.data.mentions[0]).toMatchObject({ file_name: "云笺产品手册.pdf", page_start: expect.any(Number) });
    for (const m of detail.data.mentions) expect(m.quote).toContain("云笺");

    const rel = await a.json<{ source: Entity; target: Entity; passages: Passage[] }>("GET", `/v1/knowledges/${kbA}/graph/relations/${hood.data.relations[0]!.id}`);
    expect(rel.code).toBe(0);
    expect(rel.data.passages.length).toBeGreaterThan(0);
    for (const p of rel.data.passages) {
      expect(p.quote).toContain(rel.data.source.name);
      expect(p.quote).toContain(rel.data.target.name);
    }
  });

  it("rejects bad input with clear codes and answers foreign ids as missing", async () => {
    const base = `/v1/knowledges/${kbA}/graph`;
    const bad: string[] = [
      `${base}/entities`,
      `${base}/entities?q=`,
      `${base}/entities?q=${"x".repeat(101)}`,
      `${base}/entities?q=a%00b`,
      `${base}/entities?q=a&limit=abc`,
      `${base}/entities?q=a&limit=0`,
      `${base}/entities?q=a&extra=1`,
      `${base}/entities/${yunjian.id}/neighbourhood?depth=3`,
      `${base}/entities/${yunjian.id}?limit=1000`,
      `${base}/entities/a%20b`,
    ];
    for (const url of bad) expect((await a.json("GET", url)).code, url).toBe("INVALID_PARAMS");
    // Script in a query is only text: no match, nothing echoed as markup.
    const xss = await a.json<{ items: Entity[] }>("GET", `${base}/entities?q=${encodeURIComponent("<script>alert(1)</script>")}`);
    expect(xss).toMatchObject({ code: 0, data: { items: [] } });

    expect((await a.json("GET", `${base}/entities/00000000-0000-0000-0000-000000000000`)).code).toBe("ENTITY_NOT_FOUND");
    expect((await a.json("GET", `${base}/relations/00000000-0000-0000-0000-000000000000`)).code).toBe("RELATION_NOT_FOUND");
    // B: A's KB looks missing; A's entity through B's own KB is not found either.
    for (const url of [base, `${base}/entities?q=云笺`, `${base}/entities/${yunjian.id}`, `${base}/entities/${yunjian.id}/neighbourhood`]) {
      expect((await b.json("GET", encodeURI(url))).code, url).toBe("KNOWLEDGE_NOT_FOUND");
    }
    expect((await b.json("GET", `/v1/knowledges/${kbB}/graph/entities/${yunjian.id}`)).code).toBe("ENTITY_NOT_FOUND");
    expect((await b.json("PATCH", base, { enabled: false })).code).toBe("KNOWLEDGE_NOT_FOUND");

    // Settings: malformed JSON, wrong types, unknown or no fields, a huge body.
    expect((await a.json("PATCH", base, "{not json")).code).toBe("INVALID_PARAMS");
    expect((await a.json("PATCH", base, { enabled: "yes" })).code).toBe("INVALID_PARAMS");
    expect((await a.json("PATCH", base, {})).code).toBe("INVALID_PARAMS");
    expect((await a.json("PATCH", base, { enabled: true, owner: "b" })).code).toBe("INVALID_PARAMS");
    const huge = await a.json("PATCH", base, { enabled: true, pad: "x".repeat(10_000) });
    expect([huge.status, huge.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect((await a.json<{ enabled: boolean }>("GET", base)).data.enabled).toBe(true);
  });

  it("query_knowledge_graph: the caller's access targets only, relations with citable passages", async () => {
    const signal = new AbortController().signal;
    const ctxA = { userId: userA, readableKnowledgeIds: await readableKnowledgeIds(userA), signal };
    const ctxB = { userId: userB, readableKnowledgeIds: await readableKnowledgeIds(userB), signal };
    const input = queryKnowledgeGraphTool.inputSchema.parse({ knowledge_base_ids: [kbA], query: "云笺" });
    const out = await queryKnowledgeGraphTool.run(input, ctxA);
    expect(queryKnowledgeGraphTool.outputSchema.safeParse(out).success).toBe(true);
    const e = out.entities[0]!;
    expect(e.name).toBe("云笺");
    expect(e.relations.length).toBeGreaterThan(0);
    expect(e.relations[0]!.passages[0]).toMatchObject({ file_name: "云笺产品手册.pdf", page_start: expect.any(Number), quote: expect.stringContaining("云笺") });
    expect(queryKnowledgeGraphTool.summarize(out)).toMatchObject({ count: out.entities.length, summary: expect.stringContaining("云笺") });

    // B may not read A's KB: it looks missing, with or without B's own KB beside it.
    await expect(queryKnowledgeGraphTool.run(input, ctxB)).rejects.toMatchObject({ code: "KNOWLEDGE_NOT_FOUND" });
    await expect(queryKnowledgeGraphTool.run({ ...input, knowledge_base_ids: [kbB, kbA] }, ctxB)).rejects.toMatchObject({ code: "KNOWLEDGE_NOT_FOUND" });
    // B's own KB: its own graph, nothing of A's.
    const own = await queryKnowledgeGraphTool.run({ ...input, knowledge_base_ids: [kbB], query: "星河" }, ctxB);
    expect(own.entities.map((x) => x.knowledge_id)).toEqual(own.entities.map(() => kbB));
    expect((await queryKnowledgeGraphTool.run({ ...input, knowledge_base_ids: [kbB] }, ctxB)).entities).toEqual([]);

    // Input from a model is validated.
    for (const badInput of [
      { knowledge_base_ids: [], query: "x" },
      { knowledge_base_ids: Array.from({ length: 9 }, (_, i) => `kb${i}`), query: "x" },
      { knowledge_base_ids: [kbA], query: "a\u0000b" },
      { knowledge_base_ids: [kbA], query: "x", depth: 3 },
      { knowledge_base_ids: ["../etc"], query: "x" },
    ]) {
      expect(queryKnowledgeGraphTool.inputSchema.safeParse(badInput).success).toBe(false);
      await expect(queryKnowledgeGraphTool.run(badInput as never, ctxA)).rejects.toMatchObject({ code: "INVALID_PARAMS" });
    }
  });
});
