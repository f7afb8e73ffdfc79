import type { ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/client";
import { startServeApp } from "../../support/serve-app-process";
import { Client } from "../../support/test-env";
import { POSTING_ROWS_SQL } from "@/lib/retrieval/index-writer";

// SPEC §3: "a job interrupted by a restart resumes or is marked failed, and never leaves
// duplicate chunks". A real server process is killed with SIGKILL while it indexes a large
// file, started again on the same data directory, and the file must end `success` with
// exactly one copy of each chunk.
const startServer = (dataDir: string) => startServeApp({ DATA_DIR: dataDir, AUTH_MODE: "local", INGEST_CONCURRENCY: "1" }, 60_000);

function bigText(): string {
  const paras: string[] = [];
  for (let i = 0; i < 20000; i++) {
    paras.push(`第${i}段。知识库助手需要在重启后恢复索引任务，编号 ${i} 的段落讲述设备 X${i} 的维护周期与接口参数。Paragraph ${i} describes maintenance of unit ${i}.`);
  }
  return paras.join("\n\n");
}

// Embedded-database scenario (one process owns the data directory); the PostgreSQL run skips it.
describe.skipIf(!!process.env.TEST_DATABASE_URL)("a server killed during indexing", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "ka-kill-"));
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill("SIGKILL");
  });

  it("resumes after a restart and ends with exactly one copy of each chunk", async () => {
    let server = await startServer(dataDir);
    child = server.child;
    let c = new Client(server.url);
    const kb = (await c.json<{ id: string }>("POST", "/v1/knowledges", { name: "restart" })).data.id;
    const form = new FormData();
    form.append("files", new Blob([bigText()], { type: "text/plain" }), "big.txt");
    const up = await c.json<{ files: Array<{ ok: boolean; file: { id: string } }> }>("POST", `/v1/knowledges/${kb}/files`, form);
    expect(up.code).toBe(0);
    const fileId = up.data.files[0]!.file.id;

    // The job starts right after the upload is acknowledged and takes seconds for this file;
    // kill the process while it works. The attempt count checked at the end proves it was cut.
    await new Promise((r) => setTimeout(r, 400));
    server.child.kill("SIGKILL");
    await new Promise((r) => server.child.once("exit", r));

    server = await startServer(dataDir);
    child = server.child;
    c = new Client(server.url);
    await expect
      .poll(async () => (await c.json<{ status: string }>("GET", `/v1/knowledges/${kb}/files/${fileId}`)).data.status, { timeout: 60_000, interval: 250 })
      .toBe("success");
    const content = await c.json<{ file: { chunk_count: number }; chunks: Array<{ ordinal: number; content: string }> }>(
      "GET",
      `/v1/knowledges/${kb}/files/${fileId}/content`,
    );
    const ordinals = content.data.chunks.map((ch) => ch.ordinal);
    expect(ordinals.length).toBeGreaterThan(100);
    expect(new Set(ordinals).size).toBe(ordinals.length);
    expect(ordinals).toEqual([...ordinals].sort((a, b) => a - b));
    expect(content.data.file.chunk_count).toBe(ordinals.length);
    // The last paragraph made it in once.
    expect(content.data.chunks.filter((ch) => ch.content.includes("第19999段")).length).toBe(1);

    server.child.kill("SIGTERM");
    await new Promise((r) => server.child.once("exit", r));
    child = undefined;
    const db = await openDatabase({ dataDir });
    try {
      const jobs = await db.prisma.ingestionJob.findMany({ where: { fileId } });
      expect(jobs).toHaveLength(1);
      expect(jobs[0]!.status).toBe("success");
      expect(jobs[0]!.attempts, "the first attempt was interrupted by the kill").toBeGreaterThanOrEqual(2);
      const dup = await db.prisma.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM (SELECT file_id, ordinal FROM chunks GROUP BY 1, 2 HAVING count(*) > 1) d`,
      );
      expect(dup[0]!.n).toBe(0);
      const orphanTerms = await db.prisma.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM ${POSTING_ROWS_SQL} t LEFT JOIN chunks c ON c.id = t.chunk_id WHERE c.id IS NULL`,
      );
      expect(orphanTerms[0]!.n).toBe(0);
    } finally {
      await db.close();
    }
  }, 180_000);
});
