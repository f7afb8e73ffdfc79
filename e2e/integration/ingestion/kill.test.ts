import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/client";
import { runPendingJobs } from "@/lib/ingestion/runner";
import { fixture, openTestEnv, type TestEnv } from "./helpers";
import { POSTING_ROWS_SQL } from "@/lib/retrieval/index-writer";

// A real process kill (SIGKILL) while a job is indexing: the next start requeues the job and the
// file ends `success` with exactly one copy of each chunk.
describe("restart after SIGKILL during indexing", () => {
  let t: TestEnv;
  beforeAll(async () => {
    t = await openTestEnv();
  });
  afterAll(async () => t?.close());

  it("ends success with one copy of each chunk", async () => {
    const kb = await t.newKb();
    const res = await t.upload(kb, [{ name: "handbook.pdf", data: fixture("zh-handbook.pdf") }, { name: "report.docx", data: fixture("report.docx") }]);
    const ids = res.files.map((f) => (f.ok ? f.file.id : ""));
    // PGlite: one process per data directory, so the test releases it to the child.
    const pglite = !process.env.TEST_DATABASE_URL;
    const dataDir = t.dataDir;
    if (pglite) await t.closeDbOnly();

    const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", path.join(import.meta.dirname, "support/runner-child.ts"), dataDir, process.env.TEST_DATABASE_URL ?? ""], {
      cwd: process.cwd(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    const killed = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child never reached indexing; stdout=${out} stderr=${err}`)), 60_000);
      child.stdout.on("data", (d) => {
        out += d;
        if (out.includes("STAGE indexing")) {
          setTimeout(() => {
            child.kill("SIGKILL");
            clearTimeout(timer);
            resolve();
          }, 200);
        }
      });
    });
    await killed;
    await new Promise((r) => child.once("exit", r));
    expect(child.signalCode).toBe("SIGKILL");

    const handle = pglite ? await openDatabase({ dataDir }) : null;
    const db = handle?.prisma ?? t.db;
    try {
      const running = await db.ingestionJob.count({ where: { knowledgeId: kb, status: "running" } });
      expect(running).toBeGreaterThan(0); // the dead process left its job running
      await runPendingJobs({ db, dataDir, exclusive: pglite, staleAfterMs: 1, pollMs: 50 });
      for (const id of ids) {
        const f = await db.knowledgeFile.findUniqueOrThrow({ where: { id } });
        expect(f.status, `${f.name}: ${f.errorMessage}`).toBe("success");
        const rows = await db.$queryRawUnsafe<{ n: number; d: number; mx: number }[]>(
          `SELECT count(*)::int AS n, count(DISTINCT ordinal)::int AS d, coalesce(max(ordinal), -1)::int AS mx FROM chunks WHERE file_id = $1`,
          id,
        );
        expect(rows[0]).toEqual({ n: f.chunkCount, d: f.chunkCount, mx: f.chunkCount - 1 });
        const terms = await db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${POSTING_ROWS_SQL} t LEFT JOIN chunks c ON c.id = t.chunk_id WHERE t.file_id = $1 AND c.id IS NULL`, id);
        expect(terms[0]!.n).toBe(0); // no orphaned postings
      }
    } finally {
      await handle?.close();
    }
  });
});
