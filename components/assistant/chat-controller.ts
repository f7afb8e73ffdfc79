"use client";
// Glue between the chat store and the SSE stream: ask, stop, retry, switch conversation.
// Only an explicit user action calls askQuestion; nothing here re-sends on its own (SPEC §5).
import { fetchConversationMessages } from "@/components/api/queries";
import { isApiError, kbPath } from "@/components/api/http-client";
import { openSse } from "@/components/api/sse-client";
import type { RetrievalSourceStatus, SourceReference, TranslatedQuery } from "@/components/api/types";
import { pendingRefsOf, usePendingRefs } from "@/components/knowledge/pending-refs-store";
import { createDeltaBatcher } from "./delta-batcher";
import type { MessageFeedback } from "@/components/api/types";
import { getChatSession, useChatStore } from "./chat-store";

const controllers = new Map<string, AbortController>();
// KBs where the user already chose what to show (asked, opened or started a conversation);
// the automatic "restore the last conversation" must not replace that choice.
const touched = new Set<string>();

export function userHasTouched(kbId: string): boolean {
  return touched.has(kbId);
}
let seq = 0;
const localId = (p: string) => `${p}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

export interface AskOptions {
  onSettled?: () => void;
  /** "agent" only when bootstrap reported agent_mode_available (the server refuses otherwise). */
  mode?: "grounded" | "agent";
  /**
   * Edit and resend / regenerate: the stored question (local id and server id) from which the
   * conversation is replaced by this turn, on screen and on the server.
   */
  replaceFrom?: { localId: string; serverId: string };
}

export function isStreaming(kbId: string): boolean {
  return controllers.has(kbId);
}

export async function askQuestion(kbId: string, question: string, opts: AskOptions = {}): Promise<void> {
  const text = question.trim();
  if (!text || controllers.has(kbId)) return;
  touched.add(kbId);
  const dispatch = useChatStore.getState().dispatch;
  if (opts.replaceFrom) dispatch(kbId, { type: "truncate-from", messageId: opts.replaceFrom.localId });
  const session = getChatSession(kbId);
  const assistantId = localId("a");
  dispatch(kbId, { type: "ask", userId: localId("u"), assistantId, question: text });

  const controller = new AbortController();
  controllers.set(kbId, controller);
  const batcher = createDeltaBatcher((t) => dispatch(kbId, { type: "delta", text: t }));
  let engine: string | null = null;
  try {
    await openSse({
      url: kbPath(kbId, "/assistant/chat/stream"),
      method: "POST",
      signal: controller.signal,
      terminal: ["done", "error"],
      body: {
        message: text,
        top_k: 8,
        file_ids: null,
        conversation_id: session.conversationId,
        history_limit: 6,
        answer_mode: opts.mode ?? "grounded",
        use_query_rewrite: false,
        min_score: null,
        // Sources chosen before the conversation existed are bound with its first question.
        external_knowledge_refs: session.conversationId ? [] : pendingRefsOf(kbId),
        ...(opts.replaceFrom && session.conversationId ? { replace_from_message_id: opts.replaceFrom.serverId } : {}),
      },
      onEvent: ({ event, data }) => {
        const d = (data ?? {}) as Record<string, unknown>;
        switch (event) {
          case "start":
            if (!session.conversationId) usePendingRefs.getState().clear(kbId);
            dispatch(kbId, {
              type: "start",
              conversationId: String(d.conversation_id ?? ""),
              messageId: (d.message_id as string) ?? null,
              userMessageId: typeof d.user_message_id === "string" ? d.user_message_id : null,
            });
            break;
          case "retrieval":
            dispatch(kbId, {
              type: "retrieval",
              status: String(d.status ?? ""),
              hitCount: typeof d.hit_count === "number" ? d.hit_count : undefined,
              sources: Array.isArray(d.sources) ? (d.sources as RetrievalSourceStatus[]) : undefined,
              translatedQueries: Array.isArray(d.translated_queries) ? (d.translated_queries as TranslatedQuery[]) : undefined,
            });
            break;
          case "tool_call":
            dispatch(kbId, { type: "tool_call", id: String(d.id ?? ""), name: String(d.name ?? ""), arguments: d.arguments });
            break;
          case "tool_result":
            dispatch(kbId, {
              type: "tool_result",
              id: String(d.id ?? ""),
              name: String(d.name ?? ""),
              status: d.status === "ok" ? "ok" : "error",
              count: typeof d.count === "number" ? d.count : 0,
              durationMs: typeof d.duration_ms === "number" ? d.duration_ms : 0,
              summary: String(d.summary ?? ""),
            });
            break;
          case "references":
            dispatch(kbId, { type: "references", items: Array.isArray(d.items) ? (d.items as SourceReference[]) : [] });
            break;
          case "delta":
            if (typeof d.text === "string") batcher.push(d.text);
            break;
          case "related_questions":
            batcher.flush();
            dispatch(kbId, { type: "related", items: Array.isArray(d.items) ? (d.items as string[]) : [] });
            break;
          case "done":
            batcher.flush();
            engine = typeof d.engine === "string" ? d.engine : engine;
            dispatch(kbId, { type: "done", messageId: (d.message_id as string) ?? null, finishReason: (d.finish_reason as string) ?? "stop", engine });
            break;
          case "error":
            batcher.flush();
            dispatch(kbId, { type: "error", code: String(d.code ?? "INTERNAL_ERROR"), message: String(d.message ?? "") });
            break;
        }
      },
    });
    if (controller.signal.aborted) {
      batcher.flush();
      dispatch(kbId, { type: "stopped" });
    }
  } catch (e) {
    batcher.flush();
    if (controller.signal.aborted) dispatch(kbId, { type: "stopped" });
    else if (isApiError(e)) dispatch(kbId, { type: "error", code: e.code, message: e.message });
    else dispatch(kbId, { type: "error", code: "INTERNAL_ERROR", message: (e as Error)?.message ?? "" });
  } finally {
    batcher.cancel();
    controllers.delete(kbId);
    opts.onSettled?.();
  }
}

export function stopStreaming(kbId: string): void {
  controllers.get(kbId)?.abort();
}

export function retryAnswer(kbId: string, assistantId: string, opts: AskOptions = {}): void {
  const messages = getChatSession(kbId).messages;
  const i = messages.findIndex((m) => m.id === assistantId);
  const msg = messages[i];
  if (!msg?.question || controllers.has(kbId)) return;
  // A stored failed turn is replaced on the server too (else a reload showed it again).
  const q = messages[i - 1];
  if (q?.role === "user" && q.serverId) return resendFrom(kbId, q.id, msg.question, opts);
  useChatStore.getState().dispatch(kbId, { type: "remove-exchange", assistantId });
  void askQuestion(kbId, msg.question, opts);
}

/**
 * Edit and resend (ChatGPT's truncated branch): the question and every later turn are replaced
 * by the new question's turn. Regenerate is the same with the question unchanged, so the earlier
 * answer is replaced, not kept as a version.
 */
export function resendFrom(kbId: string, userMessageId: string, question: string, opts: AskOptions = {}): void {
  const msg = getChatSession(kbId).messages.find((m) => m.id === userMessageId);
  if (!msg || msg.role !== "user" || !msg.serverId || controllers.has(kbId)) return;
  void askQuestion(kbId, question, { ...opts, replaceFrom: { localId: msg.id, serverId: msg.serverId } });
}

/** Regenerate: a new answer to the question `assistantId` answered. */
export function regenerateAnswer(kbId: string, assistantId: string, opts: AskOptions = {}): void {
  const messages = getChatSession(kbId).messages;
  const i = messages.findIndex((m) => m.id === assistantId);
  const q = i > 0 ? messages[i - 1] : undefined;
  if (q?.role === "user") resendFrom(kbId, q.id, q.content, opts);
}

export function setFeedbackLocally(kbId: string, messageId: string, feedback: MessageFeedback | null): void {
  useChatStore.getState().dispatch(kbId, { type: "feedback", messageId, feedback });
}

export function newConversation(kbId: string): void {
  touched.add(kbId);
  stopStreaming(kbId);
  useChatStore.getState().dispatch(kbId, { type: "reset" });
}

/**
 * Shows a stored conversation. `onlyIfIdle` is for the automatic restore on KB switch: if the
 * user started asking while the messages were loading, their question wins.
 */
export async function loadConversation(kbId: string, conversationId: string, opts: { onlyIfIdle?: boolean } = {}): Promise<void> {
  if (opts.onlyIfIdle && touched.has(kbId)) return;
  if (!opts.onlyIfIdle) {
    touched.add(kbId);
    stopStreaming(kbId);
  }
  const page = await fetchConversationMessages(kbId, conversationId);
  if (opts.onlyIfIdle) {
    const s = getChatSession(kbId);
    if (touched.has(kbId) || s.activeId || s.messages.length > 0) return;
  }
  useChatStore.getState().dispatch(kbId, { type: "load", conversationId, messages: page.items });
}
