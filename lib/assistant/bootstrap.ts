import "server-only";
import { requireKnowledgeAccess } from "@/lib/auth/access";
import { getDb } from "@/lib/db/client";
import { getKnowledgeSummary } from "@/lib/db/knowledges";
import { agentModeAvailable } from "./agent";
import { assistantStatus, MAX_QUESTION_LENGTH } from "./status";

export async function getBootstrap(userId: string, knowledgeId: string) {
  const access = await requireKnowledgeAccess(userId, knowledgeId, "read");
  const kb = await getKnowledgeSummary(await getDb(), userId, knowledgeId);
  const status = assistantStatus(kb, access.assistantEnabled);
  return {
    knowledge: {
      id: kb.id,
      name: kb.name,
      file_count: kb.file_count,
      ready_file_count: kb.ready_file_count,
      indexing_file_count: kb.indexing_file_count,
      failed_file_count: kb.failed_file_count,
    },
    assistant_status: status,
    input_enabled: status === "ready",
    max_question_length: MAX_QUESTION_LENGTH,
    // Agent answer mode is offered only when the chat model takes tools (issue 17).
    agent_mode_available: agentModeAvailable(),
  };
}
