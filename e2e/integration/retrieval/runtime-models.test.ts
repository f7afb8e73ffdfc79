// The runtime wires the configured embedding and rerank models into retrieval (SPEC §8, §10),
// against the local OpenAI-compatible test server. PGlite by default, PostgreSQL with TEST_DATABASE_URL.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeOpenAI, fakeEmbedding, type FakeOpenAI } from "@/e2e/support/fake-openai-server";
import { openDatabase } from "@/lib/db/client";
import { resetEnvForTests } from "@/lib/env";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { retrieve } from "@/lib/retrieval/core";
import { replaceFileChunks } from "@/lib/retrieval/index-writer";
import { buildRetrievalRuntime, type RetrievalRuntime } from "@/lib/retrieval/runtime";
import type { ChunkInput, RetrievalContext } from "@/lib/retrieval/types";

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const id = (s: string) => `${s}-${run}`;
const KB_M = id("kbModel"); // vectors of the configured model
const KB_O = id("kbOther"); // vectors of another model

function chunk(ordinal: number, content: string): ChunkInput {
  return { ordinal, content, pageStart: 1, pageEnd: 1, headingPath: "" };
}
function ctx(readable: string[]): RetrievalContext {
  return { ownerId: "u", sessionId: "s", turnId: "t", traceId: "tr", signal: new AbortController().signal, readableKnowledgeIds: new Set(readable) };
}

describe("retrieval runtime with configured models", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ka-retr-models-"));
  const handleP = openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, dataDir: dir });
  const saved = { ...process.env };
  let db: PrismaClient;
  let fake: FakeOpenAI;
  let rt: RetrievalRuntime;

  async function indexFile(kb: string, fid: string, contents: string[], model: string) {
    await db.knowledgeFile.create({
      data: { id: fid, knowledgeId: kb, name: `${fid}.txt`, fileType: "txt", mimeType: "text/plain", size: 1n, sha256: fid, storageKey: fid, status: "success" },
    });
    await replaceFileChunks(db, {
      knowledgeId: kb,
      fileId: fid,
      chunks: contents.map((c, i) => chunk(i, c)),
      embeddings: { model, vectors: contents.map((c) => fakeEmbedding(c)) },
    });
  }

  beforeAll(async () => {
    db = (await handleP).prisma;
    fake = await startFakeOpenAI();
    Object.assign(process.env, {
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "ka-retr-models-app-")), // never the repo's ./data
      EMBEDDING_MODEL: "fake-embed",
      EMBEDDING_BASE_URL: fake.baseUrl,
      RERANK_MODEL: "fake-rerank",
      RERANK_BASE_URL: fake.baseUrl,
    });
    delete process.env.DATABASE_URL;
    delete process.env.EMBEDDING_DIMENSIONS;
    delete process.env.EXTERNAL_PROVIDERS;
    resetEnvForTests();
    rt = buildRetrievalRuntime();
    await db.user.create({ data: { id: id("u"), email: `${run}@x.test`, name: "U" } });
    for (const kb of [KB_M, KB_O]) await db.knowledge.create({ data: { id: kb, name: kb, ownerId: id("u") } });
    await indexFile(KB_M, id("fm"), ["Photosynthesis", "Kubernetes schedules containers", "The zebra lives in Africa"], "fake-embed");
    await indexFile(KB_O, id("fo"), ["Photosynthesis in algae", "Zebra herds of Africa"], "other-embed");
  });
  beforeEach(() => fake.reset());
  afterAll(async () => {
    process.env = saved;
    resetEnvForTests();
    await fake?.close();
    await rt?.close();
    await (await handleP).close();
  });

  it("embeds the query with the configured model: a chunk sharing no token with the query is found by its vector", async () => {
    // "photosynthetic" stems to another term than "photosynthesis": no lexical match at all.
    const r = await rt.retrieve({ query: "photosynthetic", topK: 3, knowledgeBaseIds: [KB_M] }, ctx([KB_M]), { db, minScore: 0 });
    expect(r.diagnostics.builtin).toMatchObject({ vector: "ok", reindexRequired: [] });
    expect(r.hits[0]).toMatchObject({ content: "Photosynthesis", knowledgeId: KB_M, metadata: { lexical: null } });
    expect(r.hits[0]!.metadata!.vector as number).toBeGreaterThan(0.5);
    const emb = fake.requests.filter((x) => x.endpoint === "embeddings");
    expect(emb.map((x) => x.body.model)).toEqual(["fake-embed"]);
    expect(emb[0]!.body.input).toEqual(["photosynthetic"]);
    // Lexical-only retrieval (no model) finds nothing for that question.
    const lex = await retrieve({ query: "photosynthetic", topK: 3, knowledgeBaseIds: [KB_M] }, ctx([KB_M]), { db, minScore: 0 });
    expect(lex.hits).toEqual([]);
  });

  it("fuses the vector signal with the lexical one (score differs from lexical only)", async () => {
    const req = { query: "zebra in Africa", topK: 3, knowledgeBaseIds: [KB_M] };
    const hybrid = await rt.retrieve(req, ctx([KB_M]), { db, minScore: 0 });
    const lexical = await retrieve(req, ctx([KB_M]), { db, minScore: 0 });
    const h = hybrid.hits.find((x) => x.content === "The zebra lives in Africa")!;
    const l = lexical.hits.find((x) => x.content === "The zebra lives in Africa")!;
    expect(h.metadata).toMatchObject({ lexical: l.metadata!.lexical });
    expect(h.metadata!.vector as number).toBeGreaterThan(0);
    expect(h.score).not.toBe(l.score);
  });

  it("never compares vectors of another model; the KB is reported as needing re-indexing", async () => {
    const r = await rt.retrieve({ query: "photosynthetic", topK: 5, knowledgeBaseIds: [KB_M, KB_O] }, ctx([KB_M, KB_O]), { db, minScore: 0 });
    expect(r.diagnostics.builtin?.reindexRequired).toEqual([KB_O]);
    // KB_O's "Photosynthesis in algae" is as close in the fake embedding, but its vector is of another model.
    expect(r.hits.filter((x) => x.knowledgeId === KB_O)).toEqual([]);
    expect(r.hits[0]).toMatchObject({ content: "Photosynthesis", knowledgeId: KB_M });
    // A lexical match in KB_O still counts, with no vector score.
    const z = await rt.retrieve({ query: "zebra herds", topK: 5, knowledgeBaseIds: [KB_O] }, ctx([KB_O]), { db, minScore: 0 });
    expect(z.hits[0]).toMatchObject({ content: "Zebra herds of Africa", metadata: { vector: null } });
  });

  it("reranks with the configured model, and a rerank failure only skips rerank", async () => {
    const req = { query: "zebra in Africa", topK: 3, knowledgeBaseIds: [KB_M] };
    const ok = await rt.retrieve(req, ctx([KB_M]), { db, minScore: 0 });
    expect(ok.diagnostics.builtin?.rerank).toBe("ok");
    expect(fake.requests.filter((x) => x.endpoint === "rerank").map((x) => x.body.model)).toEqual(["fake-rerank"]);
    for (const scenario of [
      { endpoint: "rerank", kind: "fail", status: 503 },
      { endpoint: "rerank", kind: "malformed" },
      { endpoint: "rerank", kind: "cut" },
    ] as const) {
      // A cut before any response on a pooled connection is retried once on a new one
      // (lib/models/http.ts): every attempt is cut, so the retry fails too.
      if (scenario.kind === "cut") fake.setDefault(scenario);
      else fake.script(scenario);
      const r = await rt.retrieve(req, ctx([KB_M]), { db, minScore: 0 });
      expect(r.diagnostics.builtin?.rerank, scenario.kind).toBe("error");
      expect(r.sources[0]).toMatchObject({ source_type: "knowledge-base", status: "ok" });
      expect(r.hits[0]!.content).toBe("The zebra lives in Africa");
    }
  });

  it("an embedding failure leaves the lexical hits", async () => {
    fake.script({ endpoint: "embeddings", kind: "fail", status: 500 });
    const r = await rt.retrieve({ query: "zebra in Africa", topK: 3, knowledgeBaseIds: [KB_M] }, ctx([KB_M]), { db, minScore: 0 });
    expect(r.diagnostics.builtin?.vector).toBe("error");
    expect(r.sources[0]!.status).toBe("ok");
    expect(r.hits[0]).toMatchObject({ content: "The zebra lives in Africa", metadata: { vector: null } });
  });
});
