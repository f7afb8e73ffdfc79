import "server-only";
import { rm } from "node:fs/promises";
import path from "node:path";
import { describeError } from "./parsers/common";
import { filesRoot, storageKeyFor } from "./storage";

/**
 * Removes every stored original of a deleted KB (${DATA_DIR}/files/<kb_id>). Call after the KB
 * row was deleted (its files, chunks and jobs cascade). Jobs of that KB still running in this
 * process find their rows gone and stop without writing. Never throws: a leftover directory is
 * logged, not a reason to fail the request.
 */
export async function removeKnowledgeOriginals(knowledgeId: string, dataDir?: string): Promise<void> {
  // storageKeyFor validates the id (generated ids only; no path tricks).
  storageKeyFor(knowledgeId, "x");
  const dir = path.join(filesRoot(dataDir), knowledgeId);
  try {
    await rm(dir, { recursive: true, force: true });
  } catch (e) {
    console.error(`[ingestion] could not remove originals of KB ${knowledgeId}: ${describeError(e)}`);
  }
}
