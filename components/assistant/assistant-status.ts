// What the composer may do for a bootstrap status (SPEC §6): input only in `ready`; every other
// status shows a reason and a next step. Pure so the sidebar and the flow gallery agree.
import type { MessageKey } from "@/components/i18n/dictionary";
import type { AssistantBootstrap, AssistantStatus, KnowledgeSummary } from "@/components/api/types";

export interface StatusNotice {
  tone: "info" | "warn" | "error" | "muted";
  title: MessageKey;
  next: MessageKey;
  action: "upload" | "files" | null;
}

export const STATUS_NOTICES: Record<Exclude<AssistantStatus, "ready">, StatusNotice> = {
  empty: { tone: "info", title: "assistant.status.empty", next: "assistant.status.emptyNext", action: "upload" },
  indexing: { tone: "info", title: "assistant.status.indexing", next: "assistant.status.indexingNext", action: "files" },
  failed: { tone: "error", title: "assistant.status.failed", next: "assistant.status.failedNext", action: "files" },
  disabled: { tone: "muted", title: "assistant.status.disabled", next: "assistant.status.disabledNext", action: null },
};

export function composerEnabled(b: AssistantBootstrap | undefined | null): boolean {
  return !!b && b.assistant_status === "ready" && b.input_enabled !== false;
}

export function partialIndexingCount(b: AssistantBootstrap | undefined | null): number {
  if (!b || b.assistant_status !== "ready") return 0;
  return b.knowledge.indexing_file_count;
}

/**
 * The KB to select on load: the stored one if the user can still access it, else the first
 * available one, else none (SPEC §11).
 */
export function resolveSelectedKb(kbs: Pick<KnowledgeSummary, "id">[] | undefined, stored: string | null): string | null {
  if (!kbs || kbs.length === 0) return null;
  if (stored && kbs.some((k) => k.id === stored)) return stored;
  return kbs[0]!.id;
}
