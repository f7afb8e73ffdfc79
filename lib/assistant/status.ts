// Assistant status (SPEC §6), first match wins. Pure so every combination is unit-tested.
export type AssistantStatus = "disabled" | "empty" | "ready" | "indexing" | "failed";

export interface FileCounts {
  file_count: number;
  ready_file_count: number;
  indexing_file_count: number;
  failed_file_count: number;
}

export function assistantStatus(counts: FileCounts, assistantEnabled: boolean): AssistantStatus {
  if (!assistantEnabled) return "disabled";
  if (counts.file_count === 0) return "empty";
  if (counts.ready_file_count > 0) return "ready";
  if (counts.indexing_file_count > 0) return "indexing";
  return "failed";
}

export const MAX_QUESTION_LENGTH = 200;
