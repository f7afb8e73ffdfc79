import "server-only";
import { rm } from "node:fs/promises";
import path from "node:path";
import { getEnv } from "@/lib/env";

/** Removes every stored original of a deleted KB (`${DATA_DIR}/files/<kb_id>`). */
export async function removeKnowledgeOriginals(knowledgeId: string): Promise<void> {
  if (!/^[A-Za-z0-9_-]+$/.test(knowledgeId)) return; // ids only; never a path from input
  await rm(path.join(getEnv().DATA_DIR, "files", knowledgeId), { recursive: true, force: true });
}
