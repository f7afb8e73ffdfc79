// Measurement aid for issue 22 item 2 (session 25): what writing a file's chunks while its parse
// thread still tokenizes the rest saves. Parses bench:ingest's generated files (run
// `npm run bench:ingest -- --under-load --corpus-only` first) with the server's parse pool (a
// thread started ahead of the task, as the server keeps one) and writes the chunks into a fresh
// embedded PGlite database with the indexer the runner uses, two ways, alternated round by round
// in one process so both see the same minutes of this noisy machine:
//   after — the whole file's chunks are received, then written (the runner before session 25,
//           and today's path when an embedding model is configured);
//   overlap — the writer takes the chunks as they arrive (IncomingChunks), as the runner now does.
// Each round reports the task's start → chunked (extraction and chunking), chunked → last chunk
// received, and start → every chunk written.
//
//   node --conditions=react-server --import tsx scripts/parse-write-overlap.ts [--rounds 4] [--files pdf,md]
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { parseWithFeed } from "@/lib/ingestion/incoming-chunks";
import { ParsePool } from "@/lib/ingestion/parse-pool";
import { DEFAULT_CONTENT_LIMITS } from "@/lib/ingestion/types";
import { writeFileChunksInBatches } from "@/lib/retrieval/index-writer";

const args = process.argv.slice(2);
const opt = (n: string, d: string) => (args.includes(n) ? args[args.indexOf(n) + 1]! : d);
const ROUNDS = Number(opt("--rounds", "4"));
const FILES = opt("--files", "pdf,md").split(",") as Array<"pdf" | "md">;
const corpusName = readdirSync(tmpdir()).find((n) => n.startsWith("ka-bench-load-corpus-1500-"));
if (!corpusName) throw new Error("run `npm run bench:ingest -- --under-load --corpus-only` first");
const corpus = path.join(tmpdir(), corpusName);

type Mode = "after" | "overlap";

async function one(db: PrismaClient, pool: ParsePool, kb: string, fileType: "pdf" | "md", mode: Mode) {
  const fileId = randomUUID();
  const jobId = randomUUID();
  await db.knowledgeFile.create({ data: { id: fileId, knowledgeId: kb, name: fileId, fileType, mimeType: "text/plain", size: 1, sha256: fileId, storageKey: fileId, status: "indexing" } });
  await db.ingestionJob.create({ data: { id: jobId, knowledgeId: kb, fileId, status: "running", lockedBy: "bench", lockedAt: new Date() } });
  // As the server: the thread is started ahead of the task and has reported ready.
  pool.warm();
  await pool.idleReady();
  const t0 = performance.now();
  let chunkedAt = 0;
  let lastSliceAt = 0;
  const { feed: feedReady, parsed: parsing } = parseWithFeed((hooks) =>
    pool.run(
      { fileType, filePath: path.join(corpus, fileType === "pdf" ? "manual.pdf" : "handbook.md"), deadline: Date.now() + 600_000, timeoutMs: 600_000, maxPages: 5000, limits: DEFAULT_CONTENT_LIMITS, chunk: { targetChars: 650, overlapChars: 100 } },
      {
        onChunked: (n) => {
          chunkedAt = performance.now() - t0;
          hooks.onChunked(n);
        },
        onChunks: (items) => {
          hooks.onChunks(items);
          lastSliceAt = performance.now() - t0;
        },
      },
    ),
  );
  const feed = await feedReady;
  const whole = mode === "after" ? await parsing : null;
  const written = await writeFileChunksInBatches(db, {
    knowledgeId: kb,
    fileId,
    chunks: whole?.chunks ?? feed,
    headingRuns: whole?.headingRuns,
    owner: { jobId, lockedBy: "bench" },
    batchMs: 100,
  });
  const total = performance.now() - t0;
  await parsing;
  return { chunkedAt, lastSliceAt, total, written };
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), "ka-overlap-"));
  const handle = await openDatabase({ dataDir });
  const db = handle.prisma;
  const pool = new ParsePool({ memoryMb: 1024 });
  try {
    await db.user.create({ data: { id: "u1", email: "u1@x.test", name: "u" } });
    await db.knowledge.create({ data: { id: "kb", name: "kb", ownerId: "u1" } });
    const rows: string[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      for (const fileType of FILES) {
        // Alternate which mode goes first, so neither always follows the other's garbage.
        const order: Mode[] = r % 2 ? ["after", "overlap"] : ["overlap", "after"];
        const got: Partial<Record<Mode, Awaited<ReturnType<typeof one>>>> = {};
        for (const mode of order) got[mode] = await one(db, pool, "kb", fileType, mode);
        const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
        const a = got.after!;
        const o = got.overlap!;
        rows.push(`| ${r} | ${fileType} (${a.written} chunks) | ${s(a.chunkedAt)} | ${s(a.lastSliceAt - a.chunkedAt)} | **${s(a.total)}** | ${s(o.chunkedAt)} | ${s(o.lastSliceAt - o.chunkedAt)} | **${s(o.total)}** | ${s(o.total - o.chunkedAt - (a.total - a.chunkedAt))} |`);
        console.error(`[parse-write-overlap] round ${r} ${fileType} done`);
      }
    }
    console.log("| round | file | after: chunked at | after: slices | after: all written | overlap: chunked at | overlap: slices | overlap: all written | chunked → written, overlap − after |");
    console.log("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const row of rows) console.log(row);
  } finally {
    await pool.close();
    await handle.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
