// Pure state transitions of one conversation in the sidebar, driven by the SSE events of
// SPEC §5. Kept free of React and I/O so every transition is unit-tested.
import type { AgentStepView, MessageFeedback, RetrievalSourceStatus, SourceReference, StoredMessage, TranslatedQuery } from "@/components/api/types";

export type AssistantPhase = "pending" | "retrieving" | "streaming" | "done" | "stopped" | "error";

export interface ChatError {
  code: string;
  message: string;
}

export interface ChatMessage {
  id: string;
  role: "user" | "assistant";
  content: string;
  references: SourceReference[];
  phase: AssistantPhase;
  /** For an assistant message: the question it answers, kept so an error can be retried. */
  question?: string;
  error?: ChatError;
  relatedQuestions?: string[];
  engine?: string | null;
  finishReason?: string | null;
  serverId?: string | null;
  hitCount?: number | null;
  sources?: RetrievalSourceStatus[];
  /** The question as translated for retrieval (cross-language KBs), shown under the answer. */
  translatedQueries?: TranslatedQuery[];
  /** Agent mode: the tool calls, in call order (running until their result arrives). */
  steps?: AgentStepView[];
  /** The reader's thumbs up/down on an answer, as stored with the message. */
  feedback?: MessageFeedback | null;
}

export interface ChatSession {
  conversationId: string | null;
  messages: ChatMessage[];
  /** The assistant message receiving stream events, or null when idle. */
  activeId: string | null;
}

export const emptySession = (): ChatSession => ({ conversationId: null, messages: [], activeId: null });

export type ChatAction =
  | { type: "ask"; userId: string; assistantId: string; question: string }
  | { type: "start"; conversationId: string; messageId: string | null; userMessageId?: string | null }
  | { type: "retrieval"; status: "searching" | "done" | string; hitCount?: number; sources?: RetrievalSourceStatus[]; translatedQueries?: TranslatedQuery[] }
  | { type: "tool_call"; id: string; name: string; arguments: unknown }
  | { type: "tool_result"; id: string; name: string; status: "ok" | "error"; count: number; durationMs: number; summary: string }
  | { type: "references"; items: SourceReference[] }
  | { type: "delta"; text: string }
  | { type: "related"; items: string[] }
  | { type: "done"; messageId?: string | null; finishReason?: string | null; engine?: string | null }
  | { type: "error"; code: string; message: string }
  | { type: "stopped" }
  | { type: "load"; conversationId: string; messages: StoredMessage[] }
  | { type: "reset" }
  | { type: "remove-exchange"; assistantId: string }
  /** Edit and resend / regenerate: this message and every later one leave the conversation. */
  | { type: "truncate-from"; messageId: string }
  | { type: "feedback"; messageId: string; feedback: MessageFeedback | null };

function updateActive(s: ChatSession, fn: (m: ChatMessage) => ChatMessage): ChatSession {
  if (!s.activeId) return s;
  return { ...s, messages: s.messages.map((m) => (m.id === s.activeId ? fn(m) : m)) };
}

const TERMINAL: AssistantPhase[] = ["done", "stopped", "error"];

export function chatReducer(s: ChatSession, a: ChatAction): ChatSession {
  switch (a.type) {
    case "ask":
      return {
        ...s,
        activeId: a.assistantId,
        messages: [
          ...s.messages,
          { id: a.userId, role: "user", content: a.question, references: [], phase: "done" },
          { id: a.assistantId, role: "assistant", content: "", references: [], phase: "pending", question: a.question },
        ],
      };
    case "start": {
      const next = updateActive({ ...s, conversationId: a.conversationId }, (m) => ({ ...m, serverId: a.messageId }));
      // The question's own id (for editing it later) is the user message just before the answer.
      const i = next.messages.findIndex((m) => m.id === s.activeId);
      const q = i > 0 ? next.messages[i - 1] : undefined;
      if (!a.userMessageId || !q || q.role !== "user") return next;
      return { ...next, messages: next.messages.map((m) => (m === q ? { ...m, serverId: a.userMessageId } : m)) };
    }
    case "retrieval":
      return updateActive(s, (m) =>
        a.status === "searching"
          ? { ...m, phase: "retrieving" }
          : { ...m, phase: m.phase === "retrieving" || m.phase === "pending" ? "streaming" : m.phase, hitCount: a.hitCount ?? null, sources: a.sources, translatedQueries: a.translatedQueries },
      );
    case "tool_call":
      return updateActive(s, (m) => ({
        ...m,
        phase: m.phase === "pending" ? "retrieving" : m.phase,
        steps: [...(m.steps ?? []).filter((x) => x.id !== a.id), { id: a.id, name: a.name, arguments: a.arguments, status: "running", count: 0 }],
      }));
    case "tool_result":
      return updateActive(s, (m) => ({
        ...m,
        steps: (m.steps ?? []).map((x) => (x.id === a.id ? { ...x, status: a.status, count: a.count, duration_ms: a.durationMs, summary: a.summary } : x)),
      }));
    case "references":
      return updateActive(s, (m) => ({ ...m, references: [...a.items].sort((x, y) => x.index - y.index), phase: m.phase === "retrieving" || m.phase === "pending" ? "streaming" : m.phase }));
    case "delta":
      if (!a.text) return s;
      return updateActive(s, (m) => ({ ...m, content: m.content + a.text, phase: "streaming" }));
    case "related":
      return updateActive(s, (m) => ({ ...m, relatedQuestions: a.items.filter((q) => typeof q === "string" && q.trim()) }));
    case "done":
      return {
        ...updateActive(s, (m) => ({
          ...m,
          phase: a.finishReason === "aborted" ? "stopped" : "done",
          serverId: a.messageId ?? m.serverId,
          finishReason: a.finishReason ?? null,
          engine: a.engine ?? m.engine ?? null,
        })),
        activeId: null,
      };
    case "error":
      return { ...updateActive(s, (m) => ({ ...m, phase: "error", error: { code: a.code, message: a.message } })), activeId: null };
    case "stopped":
      return { ...updateActive(s, (m) => (TERMINAL.includes(m.phase) ? m : { ...m, phase: "stopped", finishReason: "aborted" })), activeId: null };
    case "load":
      return { conversationId: a.conversationId, activeId: null, messages: fromStored(a.messages) };
    case "reset":
      return emptySession();
    case "remove-exchange": {
      // Retry replaces the failed exchange: drop the assistant message and the question before it.
      const i = s.messages.findIndex((m) => m.id === a.assistantId);
      if (i < 0) return s;
      const start = i > 0 && s.messages[i - 1]?.role === "user" ? i - 1 : i;
      return { ...s, messages: [...s.messages.slice(0, start), ...s.messages.slice(i + 1)] };
    }
    case "truncate-from": {
      const i = s.messages.findIndex((m) => m.id === a.messageId);
      return i < 0 ? s : { ...s, messages: s.messages.slice(0, i) };
    }
    case "feedback":
      return { ...s, messages: s.messages.map((m) => (m.id === a.messageId ? { ...m, feedback: a.feedback } : m)) };
  }
}

export function fromStored(items: StoredMessage[]): ChatMessage[] {
  const sorted = [...items].sort((a, b) => a.created_at.localeCompare(b.created_at));
  let lastQuestion = "";
  return sorted.map((m) => {
    if (m.role === "user") {
      lastQuestion = m.content;
      return { id: m.id, serverId: m.id, role: "user", content: m.content, references: [], phase: "done" };
    }
    // Every stored end renders as it did live: a stopped answer keeps its text and the stopped
    // line, a turn that ended without context or with an error shows that error (and the partial
    // text before it), by the code the turn recorded.
    const reason = m.finish_reason;
    const code = typeof m.metadata?.error_code === "string" ? m.metadata.error_code : null;
    const failed = reason === "error" || reason === "no_context";
    const error = failed ? { code: code ?? (reason === "no_context" ? "NO_RELEVANT_CONTEXT" : "INTERNAL_ERROR"), message: "" } : undefined;
    // "interrupted": the server stopped mid-answer (crash, restart) and kept what was said;
    // "streaming": another tab's answer still being written. Both show as a stopped answer.
    const aborted = reason === "aborted" || reason === "interrupted" || reason === "streaming";
    return {
      id: m.id,
      serverId: m.id,
      role: "assistant",
      content: m.content,
      references: [...(m.references ?? [])].sort((x, y) => x.index - y.index),
      phase: aborted ? "stopped" : failed ? "error" : "done",
      error,
      question: lastQuestion,
      engine: m.engine,
      finishReason: m.finish_reason,
      steps: Array.isArray(m.metadata?.agent_steps) ? m.metadata.agent_steps : undefined,
      feedback: m.feedback ?? null,
    };
  });
}

export function isBusy(s: ChatSession): boolean {
  return s.activeId !== null;
}
