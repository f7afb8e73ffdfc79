"use client";
// The sidebar assistant as a pure view: everything it shows comes in through props, so the
// live sidebar (stores + React Query) and the flow gallery (fixtures) render the same UI.
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import type { AssistantBootstrap, ConversationSummary, KnowledgeSummary, MessageFeedback } from "@/components/api/types";
import { useT } from "@/components/i18n/locale-store";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { BookIcon, ChatIcon, CloseIcon, GlobeIcon, HistoryIcon, PlusIcon } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";
import type { ChatSession } from "./chat-reducer";
import { composerEnabled } from "./assistant-status";
import { AssistantMessage, UserMessage } from "./assistant-message";
import { AgentModeToggle } from "./agent-mode-toggle";
import { Composer } from "./composer";
import { ConversationHistory } from "./conversation-history";
import { KbSelect } from "./kb-select";
import { DEFAULT_MAX_QUESTION_LENGTH } from "./question-limit";
import { StatusNotice } from "./status-notice";
import { Welcome } from "./welcome";

export type LoadState = "idle" | "loading" | "error" | "ready";

export interface AssistantViewProps {
  knowledges: KnowledgeSummary[] | undefined;
  knowledgesState: LoadState;
  selectedKbId: string | null;
  onSelectKb: (id: string) => void;
  onCreateKb?: () => void;
  bootstrap: AssistantBootstrap | undefined;
  bootstrapState: LoadState;
  bootstrapError?: string | null;
  onRetryBootstrap?: () => void;
  session: ChatSession;
  onAsk: (question: string) => void;
  onStop: () => void;
  onRetry: (assistantMessageId: string) => void;
  /** Conversation experience (issue 20): regenerate, edit and resend, feedback. */
  onRegenerate?: (assistantMessageId: string) => void;
  onEditQuestion?: (userMessageId: string, question: string) => void;
  onFeedback?: (assistantMessageId: string, feedback: MessageFeedback | null) => Promise<unknown>;
  /** History search, paging and rename (absent in fixtures that show a fixed list). */
  historySearch?: string;
  onHistorySearch?: (q: string) => void;
  conversationsTotal?: number;
  conversationsHasMore?: boolean;
  conversationsLoadingMore?: boolean;
  onMoreConversations?: () => void;
  onRenameConversation?: (id: string, title: string) => Promise<unknown>;
  conversations: ConversationSummary[] | undefined;
  conversationsState: LoadState;
  conversationsError?: string | null;
  onSelectConversation: (id: string) => void;
  onNewConversation: () => void;
  onDeleteConversation: (id: string) => Promise<unknown>;
  onStatusAction?: (action: "upload" | "files") => void;
  onClose?: () => void;
  initialHistoryOpen?: boolean;
  initialDraft?: string;
  /** The knowledge entry (built-in KB + external sources); shown in place of the chat when open. */
  knowledgePanel?: ReactNode;
  initialKnowledgeOpen?: boolean;
}

const PILL_TONE: Record<string, BadgeTone> = { ready: "success", indexing: "info", empty: "neutral", failed: "error", disabled: "neutral", loading: "neutral", unknown: "warn" };

export function AssistantView(p: AssistantViewProps) {
  const t = useT();
  const noticeId = useId();
  const [historyOpen, setHistoryOpenState] = useState(p.initialHistoryOpen ?? false);
  const [knowledgeOpen, setKnowledgeOpen] = useState(p.initialKnowledgeOpen ?? false);
  // History and the knowledge entry share the body: opening one closes the other.
  const setHistoryOpen = (v: boolean | ((o: boolean) => boolean)) => {
    setKnowledgeOpen(false);
    setHistoryOpenState(v);
  };
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const busy = p.session.activeId !== null;
  const enabled = composerEnabled(p.bootstrap);
  const kb = p.knowledges?.find((k) => k.id === p.selectedKbId) ?? null;
  // A status that failed to load is unknown, not still being checked (the notice says why).
  const status = p.bootstrapState === "ready" && p.bootstrap ? p.bootstrap.assistant_status : p.bootstrapState === "error" ? "unknown" : "loading";
  const lastContentLength = p.session.messages.at(-1)?.content.length ?? 0;

  // Follow the growing answer unless the reader scrolled up to read something earlier.
  useEffect(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [p.session.messages.length, lastContentLength]);

  // When an answer finishes and the reader has not scrolled away, its start (and the references
  // under it) come into view instead of the panel resting in the middle of the reference list.
  const activeId = p.session.activeId;
  const finishing = useRef<string | null>(null);
  useEffect(() => {
    const was = finishing.current;
    finishing.current = activeId;
    const el = scroller.current;
    if (!was || activeId || !el || !stick.current) return;
    const msg = el.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(was)}"]`);
    if (!msg) return;
    const offset = msg.getBoundingClientRect().top - el.getBoundingClientRect().top;
    if (offset < 0) el.scrollTop += offset - 8;
  }, [activeId]);

  const ask = (q: string) => {
    setHistoryOpen(false);
    stick.current = true;
    p.onAsk(q);
  };

  let body;
  if (p.knowledgesState === "loading" || p.knowledgesState === "idle") {
    body = (
      <p className="flex items-center gap-2 p-4 text-sm text-slate-500">
        <Spinner /> {t("assistant.loadingKbs")}
      </p>
    );
  } else if (p.knowledgesState === "error") {
    body = <p role="alert" className="m-4 rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800">{t("common.loadFailed", { message: "" })}</p>;
  } else if (!p.knowledges || p.knowledges.length === 0 || !p.selectedKbId) {
    body = (
      <EmptyState
        testId="assistant-no-kb"
        icon={<BookIcon width={20} height={20} />}
        title={t("assistant.noKb")}
        hint={t("assistant.noKbHint")}
        action={
          p.onCreateKb ? (
            <Button variant="primary" onClick={p.onCreateKb}>
              <PlusIcon />
              {t("assistant.createKb")}
            </Button>
          ) : null
        }
      />
    );
  } else if (knowledgeOpen && p.knowledgePanel) {
    body = p.knowledgePanel;
  } else if (historyOpen) {
    body = (
      <div className="p-4">
        <ConversationHistory
          conversations={p.conversations}
          loading={p.conversationsState === "loading"}
          error={p.conversationsState === "error" ? (p.conversationsError ?? "") : null}
          currentId={p.session.conversationId}
          onSelect={(id) => {
            setHistoryOpen(false);
            p.onSelectConversation(id);
          }}
          onNew={() => {
            setHistoryOpen(false);
            p.onNewConversation();
          }}
          onDelete={p.onDeleteConversation}
          search={p.historySearch}
          onSearch={p.onHistorySearch}
          total={p.conversationsTotal}
          hasMore={p.conversationsHasMore}
          loadingMore={p.conversationsLoadingMore}
          onMore={p.onMoreConversations}
          onRename={p.onRenameConversation}
        />
      </div>
    );
  } else {
    body = (
      <div
        role="log"
        aria-live="polite"
        aria-relevant="additions text"
        aria-busy={busy}
        aria-label={t("chat.streamingRegion")}
        data-testid="message-log"
        className="flex flex-col gap-4 p-4"
      >
        {p.session.messages.length === 0 ? (
          p.bootstrapState === "error" ? (
            <div role="alert" className="rounded-xl bg-rose-50 px-3 py-3 text-sm text-rose-800">
              <p className="font-medium">{t("assistant.statusError")}</p>
              {p.bootstrapError ? <p className="mt-1 text-xs">{p.bootstrapError}</p> : null}
              {p.onRetryBootstrap ? (
                <Button size="sm" className="mt-2" onClick={p.onRetryBootstrap}>
                  {t("common.retry")}
                </Button>
              ) : null}
            </div>
          ) : (
            <Welcome kbName={kb?.name ?? p.bootstrap?.knowledge.name ?? ""} enabled={enabled && !busy} onAsk={ask} />
          )
        ) : (
          p.session.messages.map((m) =>
            m.role === "user" ? (
              <UserMessage
                key={m.id}
                message={m}
                canAsk={enabled && !busy}
                maxLength={p.bootstrap?.max_question_length ?? DEFAULT_MAX_QUESTION_LENGTH}
                onEdit={
                  p.onEditQuestion
                    ? (id, q) => {
                        stick.current = true;
                        p.onEditQuestion!(id, q);
                      }
                    : undefined
                }
              />
            ) : (
              <AssistantMessage
                key={m.id}
                message={m}
                knowledgeId={p.selectedKbId}
                onRetry={p.onRetry}
                onAsk={ask}
                canAsk={enabled && !busy}
                onRegenerate={
                  p.onRegenerate
                    ? (id) => {
                        stick.current = true;
                        p.onRegenerate!(id);
                      }
                    : undefined
                }
                onFeedback={p.onFeedback}
              />
            ),
          )
        )}
      </div>
    );
  }

  const showComposer = !!p.selectedKbId && p.knowledgesState === "ready" && !historyOpen && !(knowledgeOpen && p.knowledgePanel);

  return (
    <section aria-label={t("assistant.title")} data-testid="assistant-panel" className="flex h-full min-h-0 flex-col bg-slate-50">
      <header className="flex flex-col gap-3 border-b border-slate-200 bg-white px-4 pb-3 pt-3.5">
        <div className="flex items-center gap-2">
          <ChatIcon className="text-indigo-600" width={18} height={18} />
          <h2 className="text-sm font-semibold text-slate-900">{t("assistant.title")}</h2>
          {p.selectedKbId ? (
            <span data-testid="assistant-status" data-status={status}>
              <Badge tone={PILL_TONE[status] ?? "neutral"}>{t(`assistant.pill.${status}` as "assistant.pill.ready")}</Badge>
            </span>
          ) : null}
          <div className="ml-auto flex items-center gap-1">
            {p.selectedKbId ? (
              <>
                <Button variant="ghost" size="icon" aria-label={t("history.new")} title={t("history.new")} disabled={busy} onClick={() => { setHistoryOpen(false); p.onNewConversation(); }}>
                  <PlusIcon />
                </Button>
                {p.knowledgePanel ? (
                  <Button
                    variant={knowledgeOpen ? "subtle" : "ghost"}
                    size="icon"
                    aria-pressed={knowledgeOpen}
                    data-testid="knowledge-toggle"
                    aria-label={knowledgeOpen ? t("knowledge.back") : t("knowledge.open")}
                    title={knowledgeOpen ? t("knowledge.back") : t("knowledge.open")}
                    onClick={() => {
                      setHistoryOpenState(false);
                      setKnowledgeOpen((v) => !v);
                    }}
                  >
                    <GlobeIcon />
                  </Button>
                ) : null}
                <Button variant={historyOpen ? "subtle" : "ghost"} size="icon" aria-pressed={historyOpen} data-testid="history-toggle" aria-label={historyOpen ? t("history.back") : t("history.open")} title={historyOpen ? t("history.back") : t("history.open")} onClick={() => setHistoryOpen((v) => !v)}>
                  <HistoryIcon />
                </Button>
              </>
            ) : null}
            {p.onClose ? (
              <Button variant="ghost" size="icon" aria-label={t("assistant.close")} onClick={p.onClose}>
                <CloseIcon />
              </Button>
            ) : null}
          </div>
        </div>
        {p.knowledges && p.knowledges.length > 0 ? <KbSelect knowledges={p.knowledges} value={p.selectedKbId} onChange={p.onSelectKb} disabled={busy} /> : null}
      </header>
      {/* The composer comes before the message list in focus order (shown below it): Tab from
          the header reaches the question box at once instead of walking every answer's links. */}
      {showComposer ? (
        <footer className="order-last flex flex-col gap-2 border-t border-slate-200 bg-white p-3">
          {p.bootstrapState === "loading" ? (
            <p className="flex items-center gap-2 px-1 text-xs text-slate-500">
              <Spinner className="h-3 w-3" /> {t("assistant.loadingStatus")}
            </p>
          ) : p.bootstrap ? (
            <StatusNotice id={noticeId} bootstrap={p.bootstrap} onAction={p.onStatusAction} />
          ) : null}
          {p.bootstrap?.agent_mode_available ? <AgentModeToggle /> : null}
          <Composer
            enabled={enabled}
            streaming={busy}
            maxLength={p.bootstrap?.max_question_length ?? DEFAULT_MAX_QUESTION_LENGTH}
            onSend={ask}
            onStop={p.onStop}
            describedBy={p.bootstrap && !enabled ? noticeId : undefined}
            initialValue={p.initialDraft}
            lastQuestion={[...p.session.messages].reverse().find((m) => m.role === "user")?.content}
          />
        </footer>
      ) : null}
      <div
        ref={scroller}
        onScroll={(e) => {
          const el = e.currentTarget;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
        }}
        // Focusable so keyboard users can scroll long answers (axe: scrollable-region-focusable).
        tabIndex={0}
        role="region"
        aria-label={t("chat.streamingRegion")}
        className="min-h-0 flex-1 overflow-y-auto focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-indigo-500"
      >
        {body}
      </div>
    </section>
  );
}
