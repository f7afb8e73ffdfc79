// Section-shared heading evidence (issue 23; migration 20261211000000_heading_term_runs): a term of
// a chunk's heading path scores, in every chunk of the file holding it in its heading, the best
// score any of them gets for it — it says which section a question is about, not which of the
// section's chunks answers it. Runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { retrieve } from "@/lib/retrieval/core";
import { deleteFileChunks, deleteFileChunksInBatches, replaceFileChunks, writeFileChunksInBatches } from "@/lib/retrieval/index-writer";
import { lexicalSearch } from "@/lib/retrieval/lexical";
import { tokenize } from "@/lib/retrieval/text/tokenize";
import type { ChunkInput, RetrievalContext } from "@/lib/retrieval/types";

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const id = (s: string) => `${s}-${run}`;
const KB = id("kb");

const chunk = (ordinal: number, content: string, headingPath: string): ChunkInput => ({ ordinal, content, pageStart: null, pageEnd: null, headingPath });

// An article as the benchmark's cmrc2018 gives it (one passage per sentence, the title as heading
// path): the second sentence repeats the title's words, the third answers the question. Before
// the change the second ranked first (each sentence scored its own copy of the title's words).
const CHURCH = ["底特律圣公会三一堂是一所教堂，位于底特律马丁路德金大道。", "圣公会三一堂的平面采用圣公会规定的十字模式。", "该堂会成立于1878年，未得到教区主教许可。"];
// The same in English: the section's subject repeated by one chunk, the answer in another.
const GUIDE = [
  "The Acme R7 router is the Acme router for small offices, and every Acme R7 ships with the Acme app.",
  "It has eight gigabit ports and one uplink port on its back panel.",
  "Mount it on a wall or place it on a desk.",
];
// Other articles and devices of the same kind: the question's other words (成立, port) are common
// in the KB, the title's words are not — as in a real KB.
const PLACES = ["上海博物馆", "南京大学", "武汉长江大桥", "广州塔", "杭州西湖", "成都大熊猫基地"].map((p) => [p, [`${p}成立于1950年。`, `${p}位于市中心。`, `${p}每年接待游客。`]] as const);
const DEVICES = ["Zen switch", "Orbit hub", "Nova bridge", "Pulse dock", "Vega modem", "Lyra access point"].map(
  (p) => [`${p} > Hardware`, [`The ${p} has four ports.`, `The ${p} draws 12 watts.`, `Each port of the ${p} supports PoE.`]] as const,
);

describe("section-shared heading evidence", () => {
  const handleP = openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, dataDir: mkdtempSync(path.join(tmpdir(), "ka-heads-")) });
  let db: PrismaClient;
  const ctx = (): RetrievalContext => ({ ownerId: "u", sessionId: "s", turnId: "t", traceId: "t", signal: new AbortController().signal, readableKnowledgeIds: new Set([KB]) });
  const top = async (query: string) => (await retrieve({ query, topK: 3, knowledgeBaseIds: [KB] }, ctx(), { db })).hits.map((h) => h.content);
  const runsOf = async (fileId: string) =>
    (await db.$queryRawUnsafe<{ r: string }[]>(`SELECT term || ':' || first_ordinal || '-' || last_ordinal AS r FROM heading_term_runs WHERE file_id = $1 ORDER BY 1`, fileId)).map((x) => x.r);
  async function file(fid: string) {
    await db.knowledgeFile.create({
      data: { id: fid, knowledgeId: KB, name: `${fid}.txt`, fileType: "txt", mimeType: "text/plain", size: 1n, sha256: fid, storageKey: fid, status: "success" },
    });
  }

  beforeAll(async () => {
    db = (await handleP).prisma;
    await db.user.create({ data: { id: id("u"), email: `${run}@heads.test`, name: "U" } });
    await db.knowledge.create({ data: { id: KB, name: "stations", ownerId: id("u") } });
    const files: [string, string, readonly string[]][] = [
      [id("church"), "底特律圣公会三一堂", CHURCH],
      [id("guide"), "Acme R7 Router > Hardware", GUIDE],
      ...[...PLACES, ...DEVICES].map(([h, texts], i): [string, string, readonly string[]] => [id(`other${i}`), h, texts]),
    ];
    for (const [fid, heading, texts] of files) {
      await file(fid);
      await replaceFileChunks(db, { knowledgeId: KB, fileId: fid, chunks: texts.map((t, i) => chunk(i, t, heading)) });
    }
  });
  afterAll(async () => (await handleP).close());

  it("ranks the chunk that answers above the sibling that repeats the section's title (Chinese and English)", async () => {
    expect((await top("底特律圣公会三一堂哪一年成立？"))[0]).toBe(CHURCH[2]);
    expect((await top("How many ports does the Acme R7 router have?"))[0]).toBe(GUIDE[1]);
  });

  it("a question made only of the heading's words scores every chunk under that heading the same", async () => {
    const heading = tokenize("底特律圣公会三一堂");
    const r = await lexicalSearch(db, { knowledgeIds: [KB], tokens: heading, limit: 10, contextWeight: 0 });
    const church = r.hits.filter((h) => h.chunk.file_id === id("church"));
    expect(church).toHaveLength(CHURCH.length);
    // Equal up to the 1e-6 share of their own score that orders ties: the sentence repeating the
    // title's words first, as before the change.
    for (const h of church) expect(h.score).toBeCloseTo(church[0]!.score, 4);
    expect(church[0]!.chunk.content).toBe(CHURCH[1]);
  });

  it("without the file's runs (a file indexed before the migration) the ranking is the old one", async () => {
    const fid = id("church");
    const saved = await db.$queryRawUnsafe<{ term: string; first_ordinal: number; last_ordinal: number }[]>(`SELECT term, first_ordinal, last_ordinal FROM heading_term_runs WHERE file_id = $1`, fid);
    expect(saved.length).toBeGreaterThan(0);
    await db.$executeRawUnsafe(`DELETE FROM heading_term_runs WHERE file_id = $1`, fid);
    try {
      // Each chunk scores its own copy of the title's words again: the repeating sibling wins.
      expect((await top("底特律圣公会三一堂哪一年成立？"))[0]).toBe(CHURCH[1]);
      const r = await lexicalSearch(db, { knowledgeIds: [KB], tokens: tokenize("底特律圣公会三一堂"), limit: 10, fileIds: [fid], contextWeight: 0 });
      expect(new Set(r.hits.map((h) => h.score.toFixed(9))).size).toBeGreaterThan(1);
    } finally {
      for (const s of saved) {
        await db.$executeRawUnsafe(
          `INSERT INTO heading_term_runs (knowledge_id, file_id, term, first_ordinal, last_ordinal) VALUES ($1, $2, $3, $4, $5)`,
          KB,
          fid,
          s.term,
          s.first_ordinal,
          s.last_ordinal,
        );
      }
    }
    expect((await top("底特律圣公会三一堂哪一年成立？"))[0]).toBe(CHURCH[2]);
  });

  it("writes each heading term's runs with the file and removes them with it (re-index, delete, batches)", async () => {
    const fid = id("runs");
    await file(fid);
    const headings = ["Guide > Install", "Guide > Install", "Guide > Usage", "Guide > Usage", "Guide > Usage", "Notes"];
    // A file listed for the backfill (indexed before the migration) leaves the list when written.
    const pending = async () => (await db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM heading_term_runs_pending WHERE file_id = $1`, fid))[0]!.n;
    const listAgain = () => db.$executeRawUnsafe(`INSERT INTO heading_term_runs_pending (file_id) VALUES ($1)`, fid);
    await listAgain();
    await replaceFileChunks(db, { knowledgeId: KB, fileId: fid, chunks: headings.map((h, i) => chunk(i, `passage ${i}`, h)) });
    expect(await pending()).toBe(0);
    // "Notes" heads one chunk only: nothing to share, no run.
    expect(await runsOf(fid)).toEqual(["guid:0-4", "instal:0-1", "usag:2-4"]);
    await replaceFileChunks(db, { knowledgeId: KB, fileId: fid, chunks: [chunk(0, "passage", "Notes"), chunk(1, "passage", "Notes")] });
    expect(await runsOf(fid)).toEqual(["note:0-1"]);
    await deleteFileChunks(db, fid);
    expect(await runsOf(fid)).toEqual([]);

    // The ingestion path: a run spanning several batches is one run.
    await db.ingestionJob.create({ data: { id: id("job"), knowledgeId: KB, fileId: fid, status: "running", lockedBy: "w1", lockedAt: new Date() } });
    const many = Array.from({ length: 40 }, (_, i) => chunk(i, `passage ${i}`, i < 30 ? "Guide > Install" : "Guide > Usage"));
    await listAgain();
    await writeFileChunksInBatches(db, { knowledgeId: KB, fileId: fid, chunks: many, owner: { jobId: id("job"), lockedBy: "w1" }, batchMs: 0.001 });
    expect(await runsOf(fid)).toEqual(["guid:0-39", "instal:0-29", "usag:30-39"]);
    expect(await pending()).toBe(0);
    // Written again in batches: the old runs go in the delete batches, the new ones come once.
    await writeFileChunksInBatches(db, { knowledgeId: KB, fileId: fid, chunks: many.slice(25), owner: { jobId: id("job"), lockedBy: "w1" }, batchMs: 0.001 });
    expect(await runsOf(fid)).toEqual(["guid:25-39", "instal:25-29", "usag:30-39"]);
    await listAgain();
    await deleteFileChunksInBatches(db, fid, 7);
    expect(await runsOf(fid)).toEqual([]);
    expect(await pending()).toBe(0);

    await replaceFileChunks(db, { knowledgeId: KB, fileId: fid, chunks: headings.map((h, i) => chunk(i, `passage ${i}`, h)) });
    await db.knowledgeFile.delete({ where: { id: fid } });
    expect(await runsOf(fid)).toEqual([]);
  });
});
