"use client";
// The live sidebar: wires the assistant view to React Query (KBs, bootstrap, conversations)
// and to the chat store/controller (streaming answers).
import { useCallback, useEffect, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { putMessageFeedback, queryKeys, useBootstrap, useConversations, useDeleteConversation, useKnowledges, useRenameConversation } from "@/components/api/queries";
import { isApiError } from "@/components/api/http-client";
import { KnowledgePanel, useExternalSourceRegistrations } from "@/components/knowledge/knowledge-panel";
import { useWorkspaceStore } from "@/components/workspace/workspace-store";
import { AssistantView, type LoadState } from "./assistant-view";
import { useAnswerModeStore } from "./answer-mode-store";
import { askQuestion, loadConversation, newConversation, regenerateAnswer, resendFrom, retryAnswer, setFeedbackLocally, stopStreaming } from "./chat-controller";
import { getChatSession, useChatSession } from "./chat-store";
import { readConversationLocation, useConversationUrl, writeConversationLocation } from "./conversation-url";

// KBs whose last conversation was already restored in this page; switching back to one keeps
// whatever is on screen instead of reloading it.
const restored = new Set<string>();
// KBs whose restore is still loading its messages.
const restoring = new Set<string>();

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
  // The history panel's search runs as its own query; the restore below reads the unfiltered list.
  const [historySearch, setHistorySearch] = useState("");
  const searched = useConversations(kbId, historySearch);
  const shown = historySearch.trim() ? searched : conversations;
  const deleteConversation = useDeleteConversation(kbId ?? "");
  const renameConversation = useRenameConversation(kbId ?? "");
  const session = useChatSession(kbId);
  const agentOn = useAnswerModeStore((s) => s.agent);
  // Agent mode only where the server offers it; otherwise the usual grounded answer.
  const mode = agentOn && bootstrap.data?.agent_mode_available ? ("agent" as const) : ("grounded" as const);
  useExternalSourceRegistrations();
  const kb = kbs.data?.find((k) => k.id === kbId) ?? null;

  const latestConversationId = conversations.data?.pages[0]?.items[0]?.id ?? null;
  // Bumped when a restore settles, so the URL sync sees that the page's first state is decided.
  const [, setRestoreTick] = useState(0);
  useEffect(() => {
    if (!kbId || restored.has(kbId) || !conversations.isSuccess || conversations.isPlaceholderData) return;
    restored.add(kbId);
    const s = getChatSession(kbId);
    // Nothing to load (a new or empty KB): the page's first state is decided now, so the URL
    // follows this KB (else a reload would reopen the KB the URL still named).
    const settledNow = () => void Promise.resolve().then(() => setRestoreTick((n) => n + 1));
    if (s.messages.length > 0 || s.activeId) return settledNow();
    // The conversation the URL names (a reload, a shared link) wins over the newest one.
    const fromUrl = readConversationLocation();
    const target = fromUrl.kb === kbId && fromUrl.c ? fromUrl.c : latestConversationId;
    if (!target) return settledNow();
    restoring.add(kbId);
    loadConversation(kbId, target, { onlyIfIdle: true })
      .catch(() => {
        if (target !== fromUrl.c) restored.delete(kbId);
        // The URL's conversation is gone or not this user's: a new conversation, said in the URL.
        else writeConversationLocation({ kb: kbId, c: null }, "replace");
      })
      .finally(() => {
        restoring.delete(kbId);
        setRestoreTick((n) => n + 1);
      });
  }, [kbId, conversations.isSuccess, conversations.isPlaceholderData, latestConversationId]);

  const openFromUrl = useCallback(async (id: string, conversationId: string | null) => {
    if (conversationId) await loadConversation(id, conversationId);
    else newConversation(id);
  }, []);
  useConversationUrl(kbId, session.conversationId, !!kbId && restored.has(kbId) && !restoring.has(kbId), {
    selectKb,
    openConversation: openFromUrl,
  });

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
      onAsk={(q) => kbId && void askQuestion(kbId, q, { onSettled: settled(kbId), mode })}
      onStop={() => kbId && stopStreaming(kbId)}
      onRetry={(id) => kbId && retryAnswer(kbId, id, { onSettled: settled(kbId), mode })}
      onRegenerate={(id) => kbId && regenerateAnswer(kbId, id, { onSettled: settled(kbId), mode })}
      onEditQuestion={(id, q) => kbId && resendFrom(kbId, id, q, { onSettled: settled(kbId), mode })}
      onFeedback={async (id, feedback) => {
        if (!kbId) return;
        const s = getChatSession(kbId);
        const m = s.messages.find((x) => x.id === id);
        if (!s.conversationId || !m?.serverId) return;
        await putMessageFeedback(kbId, s.conversationId, m.serverId, feedback);
        setFeedbackLocally(kbId, id, feedback);
        void qc.invalidateQueries({ queryKey: ["feedback", kbId] });
      }}
      conversations={shown.data?.pages.flatMap((pg) => pg.items)}
      conversationsState={stateOf(shown, !!kbId)}
      conversationsError={errorText(shown.error)}
      conversationsTotal={shown.data?.pages[0]?.total}
      conversationsHasMore={shown.hasNextPage}
      conversationsLoadingMore={shown.isFetchingNextPage}
      onMoreConversations={() => void shown.fetchNextPage()}
      historySearch={historySearch}
      onHistorySearch={setHistorySearch}
      onRenameConversation={(id, title) => renameConversation.mutateAsync({ id, title })}
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
