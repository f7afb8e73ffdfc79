"use client";
// The built-in opener for references into this app's own KBs: open the document viewer at the
// cited page with the quote highlighted. Registered once, on import, from the workspace shell.
import { useViewerStore } from "@/components/viewer/viewer-store";
import { useWorkspaceStore } from "@/components/workspace/workspace-store";
import { registerSourceOpener } from "./opener-registry";

export const KNOWLEDGE_SOURCE_TYPE = "knowledge-base";

let registered = false;

export function registerBuiltinOpeners(): void {
  if (registered) return;
  registered = true;
  registerSourceOpener(KNOWLEDGE_SOURCE_TYPE, (ref, ctx) => {
    const kbId = ctx.knowledgeId;
    if (!kbId || !ref.file_id) throw new Error("knowledge reference without a file");
    useViewerStore.getState().open({
      kbId,
      fileId: ref.file_id,
      fileName: ref.file_name,
      page: ref.page_start,
      quote: ref.quote,
      chunkId: ref.chunk_id,
    });
    const ws = useWorkspaceStore.getState();
    ws.setMainTab("viewer");
    // On phones the assistant is a sheet over the viewer; close it so the page is visible.
    if (typeof window !== "undefined" && window.matchMedia("(max-width: 1023px)").matches) ws.setAssistantSheetOpen(false);
  });
}
