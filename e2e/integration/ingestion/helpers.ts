import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { runPendingJobs, type RunnerOptions } from "@/lib/ingestion/runner";
import { receiveUpload, type UploadLimits } from "@/lib/ingestion/upload";

export const FIXTURES = path.resolve(import.meta.dirname, "../../fixtures");

export function fixture(name: string): Buffer {
  return readFileSync(path.join(FIXTURES, name));
}

export interface TestEnv {
  db: PrismaClient;
  dataDir: string;
  userId: string;
  close(): Promise<void>;
  /** Closes the database but keeps the data directory (hand it to another process). */
  closeDbOnly(): Promise<void>;
  newKb(name?: string): Promise<string>;
  upload(kbId: string, files: Array<{ name: string; data: Uint8Array | string }>, limits?: Partial<UploadLimits>): ReturnType<typeof receiveUpload>;
  runJobs(extra?: Partial<RunnerOptions>): Promise<void>;
}

/** A real database (PGlite in a temp dir, or TEST_DATABASE_URL) and a temp DATA_DIR. */
export async function openTestEnv(): Promise<TestEnv> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "ka-ingest-"));
  const handle = await openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, dataDir });
  const db = handle.prisma;
  const userId = `u-${randomUUID()}`;
  await db.user.create({ data: { id: userId, email: `${userId}@x.test`, name: "Tester" } });
  let open = true;
  const env: TestEnv = {
    db,
    dataDir,
    userId,
    async close() {
      if (open) await handle.close();
      open = false;
      rmSync(dataDir, { recursive: true, force: true });
    },
    async closeDbOnly() {
      if (open) await handle.close();
      open = false;
    },
    async newKb(name = "KB") {
      const id = randomUUID();
      await db.knowledge.create({ data: { id, name, ownerId: userId } });
      await db.knowledgeMember.create({ data: { knowledgeId: id, userId, role: "owner" } });
      return id;
    },
    async upload(kbId, files, limits) {
      const form = new FormData();
      for (const f of files) form.append("files", new File([f.data as BlobPart], f.name));
      const request = new Request("http://localhost/v1/knowledges/x/files", { method: "POST", body: form });
      return receiveUpload(request, { knowledgeId: kbId, userId, db, dataDir, limits, notify: () => {} });
    },
    runJobs(extra = {}) {
      return runPendingJobs({ db, dataDir, exclusive: !process.env.TEST_DATABASE_URL, pollMs: 50, ...extra });
    },
  };
  return env;
}
