import "server-only";
import { describeError } from "./parsers/common";
import { getStorage } from "./storage";

/**
 * Removes every stored original of a deleted KB (local: ${DATA_DIR}/files/<kb_id>; S3: the
 * objects under <prefix><kb_id>/). Call after the KB row was deleted (its files, chunks and
 * jobs cascade). Jobs of that KB still running find their rows gone and stop without writing.
 * Never throws: a leftover is logged (and on S3 removed by the next start's orphan sweep), not
 * a reason to fail the request.
 */
export async function removeKnowledgeOriginals(knowledgeId: string, dataDir?: string): Promise<void> {
  try {
    await (await getStorage(dataDir)).deleteKnowledge(knowledgeId);
  } catch (e) {
    console.error(`[ingestion] could not remove originals of KB ${knowledgeId}: ${describeError(e)}`);
  }
}
