import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { getEnv } from "@/lib/env";
import { isAppError } from "@/lib/errors";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { normalizeDisplayName } from "./file-name";
import { kickRunner } from "./runner";
import { sniffBuffer } from "./sniff";
import { getStorage } from "./storage";
import { sampleMarkerPath } from "./sample-marker";
import { recordFile } from "./upload";

// The first-start sample KB: real documents from prisma/sample (a Chinese product handbook as
// a 7-page PDF, a quarterly report as DOCX with headings, a table and a list, an English
// administrator guide in Markdown), recorded like uploads so they go through the normal
// ingestion jobs (the runner picks them up when it starts).
// Seeded once: only when the user has no KB at all and the marker file
// ${DATA_DIR}/sample-seeded.json does not exist; the marker is written either way, so deleting
// the sample KB later does not bring it back.

export const SAMPLE_KB_NAME = "示例知识库 / Sample knowledge base";
export const SAMPLE_KB_DESCRIPTION =
  "示例文档：云笺产品手册（PDF）、2025 年第二季度运营报告（DOCX）和英文管理员指南（Markdown）。可以直接提问，例如“2025 年国内协同办公市场规模是多少？”\nSample documents to try the assistant with, e.g. \"How long are audit logs kept?\"";
export const SAMPLE_MARKER_REMARK = "sample";
const ADVISORY_KEY = 727_003;

export function sampleDir(): string {
  return path.join(process.cwd(), "prisma", "sample");
}

const markerPath = sampleMarkerPath;

export interface SeedOptions {
  ownerId: string;
  dataDir?: string;
  /** Defaults to prisma/sample. */
  sourceDir?: string;
}

/** Returns the new KB id, or null when nothing was seeded. */
export async function seedSampleKnowledge(db: PrismaClient, opts: SeedOptions): Promise<string | null> {
  const dataDir = opts.dataDir ?? getEnv().DATA_DIR;
  const marker = markerPath(dataDir);
  if (existsSync(marker)) return null;
  const src = opts.sourceDir ?? sampleDir();
  let names: string[] = [];
  try {
    // Read at run time (like the migrations): the ignore comments keep Turbopack from tracing
    // the whole project for a directory it cannot scope.
    names = (await readdir(/* turbopackIgnore: true */ src)).filter((n) => !n.startsWith(".") && /\.(pdf|docx|md|txt|html?)$/i.test(n)).sort();
  } catch {
    names = [];
  }

  // Decide and create the KB under a lock so two instances starting together seed once.
  const kbId = await db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${ADVISORY_KEY})`);
    const has = await tx.knowledgeMember.count({ where: { userId: opts.ownerId } });
    if (has > 0 || names.length === 0) return null;
    const id = randomUUID();
    await tx.knowledge.create({
      data: { id, name: SAMPLE_KB_NAME, description: SAMPLE_KB_DESCRIPTION, remark: SAMPLE_MARKER_REMARK, ownerId: opts.ownerId },
    });
    await tx.knowledgeMember.create({ data: { knowledgeId: id, userId: opts.ownerId, role: "owner" } });
    return id;
  });

  await mkdir(path.dirname(marker), { recursive: true });
  await writeFile(marker, JSON.stringify({ seededAt: new Date().toISOString(), knowledgeId: kbId, ownerId: opts.ownerId }) + "\n");
  if (!kbId) return null;

  for (const n of names) {
    const data = await readFile(/* turbopackIgnore: true */ path.join(/* turbopackIgnore: true */ src, n));
    const name = normalizeDisplayName(n);
    let storageKey: string | null = null;
    try {
      const type = await sniffBuffer(name, data);
      const fileId = randomUUID();
      storageKey = await (await getStorage(dataDir)).put(kbId, fileId, data);
      await recordFile(db, {
        fileId,
        knowledgeId: kbId,
        userId: opts.ownerId,
        name,
        fileType: type.fileType,
        mimeType: type.mimeType,
        size: data.length,
        sha256: createHash("sha256").update(data).digest("hex"),
        storageKey,
        maxKbBytes: Number.MAX_SAFE_INTEGER,
      });
    } catch (e) {
      if (storageKey) await (await getStorage(dataDir)).delete(storageKey).catch(() => {});
      console.error(`[ingestion] sample document ${n} skipped: ${isAppError(e) ? e.message : (e as Error).message}`);
    }
  }
  kickRunner();
  return kbId;
}
