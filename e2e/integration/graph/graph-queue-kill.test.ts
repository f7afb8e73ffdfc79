import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/client";
import { runPendingJobs } from "@/lib/ingestion/runner";
import { receiveUpload } from "@/lib/ingestion/upload";
import { sampleDir } from "@/lib/ingestion/sample";
import { openTestEnv, type TestEnv } from "../ingestion/helpers";

// A process killed (SIGKILL) while one file's graph is being built and the next file's graph
// waits its turn: the waiting graph was `pending` forever after the restart (nothing resumed it).
// Now the next start builds it; the one cut off while building is reported failed, without a
// partial graph.
const sample = (name: string) => ({ name, data: readFileSync(path.join(sampleDir(), name)) });

describe("graphs waiting their turn survive a SIGKILL", () => {
  let t: TestEnv;
  beforeAll(async () => {
    t = await openTestEnv();
  });
  afterAll(async () => t?.close());

  it("builds the pending graph at the next start", async () => {
    const kb = await t.newKb();
    const res = await t.upload(kb, [sample("admin-guide.md"), sample("2025Q2运营报告.docx")]);
    const ids = res.files.map((f) => (f.ok ? f.file.id : ""));
    expect(ids.every(Boolean)).toBe(true);
    const pglite = !process.env.TEST_DATABASE_URL;
    const dataDir = t.dataDir;
    if (pglite) await t.closeDbOnly();

    const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", path.join(import.meta.dirname, "support/graph-wait-child.ts"), dataDir, process.env.TEST_DATABASE_URL ?? "", kb], {
      cwd: process.cwd(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    const held = { building: "", pending: "" };
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no graph pending behind a building one; stdout=${out} stderr=${err}`)), 90_000);
      child.stdout.on("data", (d) => {
        out += d;
        held.building ||= /GRAPH (\S+)/.exec(out)?.[1] ?? "";
        const pending = [...out.matchAll(/PENDING (\S+)/g)].map((m) => m[1]!).find((id) => id !== held.building);
        if (held.building && pending) {
          held.pending = pending;
          clearTimeout(timer);
          child.kill("SIGKILL");
          resolve();
        }
      });
    });
    await new Promise((r) => child.once("exit", r));
    expect(child.signalCode).toBe("SIGKILL");
    expect(new Set([held.building, held.pending])).toEqual(new Set(ids));

    const handle = pglite ? await openDatabase({ dataDir }) : null;
    const db = handle?.prisma ?? t.db;
    try {
      const before = await db.knowledgeFile.findUniqueOrThrow({ where: { id: held.pending } });
      expect([before.status, before.graphStatus]).toEqual(["success", "pending"]);
      // A file queued when the server comes back: the resumed graph waits until it is searchable,
      // as the runner's own graph stages do. It is held in parsing until the resumed graph leaves
      // `pending` or 3 s pass; without the wait the graph is built meanwhile.
      const form = new FormData();
      form.append("files", new File(["# Queued\n\nA file queued before the restart mentions 云笺."], "queued-at-restart.md"));
      const upload = await receiveUpload(new Request("http://localhost/v1/knowledges/x/files", { method: "POST", body: form }), {
        knowledgeId: kb,
        userId: t.userId,
        db,
        dataDir,
        notify: () => {},
      });
      const queuedId = upload.files[0]?.ok ? upload.files[0].file.id : "";
      expect(queuedId).not.toBe("");
      let resumedDuringIndexing = "";
      // The restart (drain waits for the graphs it resumes).
      await runPendingJobs({
        db,
        dataDir,
        exclusive: pglite,
        staleAfterMs: 1,
        pollMs: 50,
        onStage: async (stage, fileId) => {
          if (fileId !== queuedId || stage !== "parsing") return;
          const until = Date.now() + 3_000;
          let status = "pending";
          while (Date.now() < until && status === "pending") {
            status = (await db.knowledgeFile.findUniqueOrThrow({ where: { id: held.pending } })).graphStatus;
            await new Promise((r) => setTimeout(r, 50));
          }
          resumedDuringIndexing = status;
        },
      });
      expect(resumedDuringIndexing, "the resumed graph's status while a file was being indexed").toBe("pending");
      const resumed = await db.knowledgeFile.findUniqueOrThrow({ where: { id: held.pending } });
      expect(resumed.graphStatus, resumed.graphErrorMessage ?? "").toBe("success");
      const mentions = await db.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM graph_mentions m JOIN chunks c ON c.id = m.chunk_id WHERE c.file_id = $1`,
        held.pending,
      );
      expect(mentions[0]!.n).toBeGreaterThan(0);
      // The graph cut off mid-build: failed with its reason, and nothing of it left.
      const cut = await db.knowledgeFile.findUniqueOrThrow({ where: { id: held.building } });
      expect([cut.status, cut.graphStatus, cut.graphErrorCode]).toEqual(["success", "failed", "INTERNAL_ERROR"]);
      const partial = await db.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM graph_mentions m JOIN chunks c ON c.id = m.chunk_id WHERE c.file_id = $1`,
        held.building,
      );
      expect(partial[0]!.n).toBe(0);
    } finally {
      await handle?.close();
    }
  });
});
