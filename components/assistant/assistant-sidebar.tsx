"use client";
// The live sidebar: wires the assistant view to React Query (KBs, bootstrap, conversations)
// and to the chat store/controller (streaming answers).
import { useEffect } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { queryKeys, useBootstrap, useConversations, useDeleteConversation, useKnowledges } from "@/components/api/queries";
import { isApiError } from "@/components/api/http-client";
import { KnowledgePanel, useExternalSourceRegistrations } from "@/components/knowledge/knowledge-panel";
import { useWorkspaceStore } from "@/components/workspace/workspace-store";
import { AssistantView, type LoadState } from "./assistant-view";
import { askQuestion, loadConversation, newConversation, retryAnswer, stopStreaming } from "./chat-controller";
import { getChatSession, useChatSession } from "./chat-store";

// KBs whose last conversation was already restored in this page; switching back to one keeps
// whatever is on screen instead of reloading it.
const restored = new Set<string>();

function stateOf(q: { isPending: boolean; isError: boolean; fetchStatus: string }, enabled: boolean): LoadState {
  if (!enabled) return "idle";
  if (q.isError) return "error";
  if (q.isPending) return q.fetchStatus === "idle" ? "idle" : "loading";
  return "ready";
}

export function AssistantSidebar({ onClose }: { onClose?: () => void }) {
  const qc = useQueryClient();
  const kbId = useWorkspaceStore((s) => s.selectedKbId);
  const selectKb = useWorkspaceStore((s) => s.selectKb);
  const requestCreateKb = useWorkspaceStore((s) => s.requestCreateKb);
  const setMainTab = useWorkspaceStore((s) => s.setMainTab);
  const setSheet = useWorkspaceStore((s) => s.setAssistantSheetOpen);
  const kbs = useKnowledges();
  const bootstrap = useBootstrap(kbId);
  const conversations = useConversations(kbId);
  const deleteConversation = useDeleteConversation(kbId ?? "");
  const session = useChatSession(kbId);
  useExternalSourceRegistrations();
  const kb = kbs.data?.find((k) => k.id === kbId) ?? null;

  const latestConversationId = conversations.data?.items[0]?.id ?? null;
  useEffect(() => {
    if (!kbId || restored.has(kbId) || !conversations.isSuccess || conversations.isPlaceholderData) return;
    restored.add(kbId);
    const s = getChatSession(kbId);
    if (latestConversationId && s.messages.length === 0 && !s.activeId) {
      loadConversation(kbId, latestConversationId, { onlyIfIdle: true }).catch(() => restored.delete(kbId));
    }
  }, [kbId, conversations.isSuccess, conversations.isPlaceholderData, latestConversationId]);

  const settled = (id: string) => () => {
    void qc.invalidateQueries({ queryKey: queryKeys.conversations(id) });
    // A first question binds the sources chosen before it.
    void qc.invalidateQueries({ queryKey: ["external-refs", id] });
  };

  const errorText = (e: unknown) => (isApiError(e) ? e.message : e ? String(e) : null);

  return (
    <AssistantView
      knowledges={kbs.data}
      knowledgesState={stateOf(kbs, true)}
      selectedKbId={kbId}
      onSelectKb={selectKb}
      onCreateKb={requestCreateKb}
      bootstrap={bootstrap.data}
      bootstrapState={stateOf(bootstrap, !!kbId)}
      bootstrapError={errorText(bootstrap.error)}
      onRetryBootstrap={() => void bootstrap.refetch()}
      session={session}
      onAsk={(q) => kbId && void askQuestion(kbId, q, { onSettled: settled(kbId) })}
      onStop={() => kbId && stopStreaming(kbId)}
      onRetry={(id) => kbId && retryAnswer(kbId, id, { onSettled: settled(kbId) })}
      conversations={conversations.data?.items}
      conversationsState={stateOf(conversations, !!kbId)}
      conversationsError={errorText(conversations.error)}
      onSelectConversation={(id) => kbId && void loadConversation(kbId, id).catch(() => undefined)}
      onNewConversation={() => kbId && newConversation(kbId)}
      onDeleteConversation={async (id) => {
        await deleteConversation.mutateAsync(id);
        if (kbId && getChatSession(kbId).conversationId === id) newConversation(kbId);
      }}
      onStatusAction={(action) => {
        setMainTab("files");
        setSheet(false);
        if (action === "upload") requestAnimationFrame(() => document.querySelector<HTMLElement>("[data-testid=upload-button]")?.focus());
      }}
      onClose={onClose}
      knowledgePanel={kbId ? <KnowledgePanel kbId={kbId} kbName={kb?.name ?? ""} fileCount={kb?.file_count ?? 0} conversationId={session.conversationId} /> : undefined}
    />
  );
}
