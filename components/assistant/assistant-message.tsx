"use client";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useErrorCopy, useT } from "@/components/i18n/locale-store";
import { Button } from "@/components/ui/button";
import { AlertIcon, PencilIcon, RefreshIcon } from "@/components/ui/icons";
import { inputClass } from "@/components/ui/text-field";
import type { MessageFeedback } from "@/components/api/types";
import { AnswerActions } from "./answer-actions";
import { Spinner } from "@/components/ui/spinner";
import { focusRing } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { AgentSteps } from "./agent-steps";
import type { ChatMessage } from "./chat-reducer";
import { MarkdownAnswer } from "./markdown-answer";
import { orderReferences } from "./citation-order";
import type { RetrievalSourceStatus } from "@/components/api/types";
import { KNOWLEDGE_SOURCE_TYPE } from "@/components/sources/builtin-openers";
import { ProviderBadge } from "@/components/sources/provider-badge";
import { ReferenceList, referenceCardId } from "./reference-cards";

const HIGHLIGHT_MS = 2200;

export interface UserMessageProps {
  message: ChatMessage;
  /** Edit and resend: replaces this question and every later turn (absent: not editable). */
  onEdit?: (id: string, question: string) => void;
  canAsk?: boolean;
  maxLength?: number;
}

export function UserMessage({ message, onEdit, canAsk = false, maxLength = 200 }: UserMessageProps) {
  const t = useT();
  const editId = useId();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(message.content);
  if (editing && onEdit) {
    const text = draft.trim();
    return (
      <form
        data-testid="edit-question-form"
        className="ml-auto flex w-[85%] flex-col gap-1.5"
        onSubmit={(e) => {
          e.preventDefault();
          if (!text || !canAsk) return;
          setEditing(false);
          onEdit(message.id, text);
        }}
      >
        <label htmlFor={editId} className="sr-only">
          {t("convo.editLabel")}
        </label>
        <textarea
          id={editId}
          data-testid="edit-question-input"
          autoFocus
          rows={2}
          maxLength={maxLength}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") setEditing(false);
          }}
          className={cx(inputClass, "resize-none")}
        />
        <p className="text-xs text-slate-600">{t("convo.editHint")}</p>
        <div className="flex justify-end gap-2">
          <Button size="sm" onClick={() => setEditing(false)}>
            {t("common.cancel")}
          </Button>
          <Button size="sm" variant="primary" type="submit" data-testid="edit-question-send" disabled={!text || !canAsk}>
            {t("convo.editSend")}
          </Button>
        </div>
      </form>
    );
  }
  return (
    <div className="group flex items-start justify-end gap-1">
      <span className="sr-only">{t("chat.you")}: </span>
      {onEdit && message.serverId ? (
        <Button
          variant="ghost"
          size="icon"
          data-testid="edit-question"
          aria-label={t("convo.edit")}
          title={t("convo.edit")}
          disabled={!canAsk}
          onClick={() => {
            setDraft(message.content);
            setEditing(true);
          }}
        >
          <PencilIcon />
        </Button>
      ) : null}
      <div data-testid="message-user" className="max-w-[85%] whitespace-pre-wrap break-words rounded-2xl rounded-br-md bg-indigo-600 px-3.5 py-2 text-sm text-white">
        {message.content}
      </div>
    </div>
  );
}

export interface AssistantMessageProps {
  message: ChatMessage;
  knowledgeId: string | null;
  onRetry?: (id: string) => void;
  onAsk?: (q: string) => void;
  canAsk: boolean;
  onRegenerate?: (id: string) => void;
  onFeedback?: (id: string, feedback: MessageFeedback | null) => Promise<unknown>;
}

export function AssistantMessage({ message, knowledgeId, onRetry, onAsk, canAsk, onRegenerate, onFeedback }: AssistantMessageProps) {
  const t = useT();
  const errorCopy = useErrorCopy();
  const [refsOpen, setRefsOpen] = useState(true);
  const [highlighted, setHighlighted] = useState<number | null>(null);
  const [jump, setJump] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const indexes = useMemo(() => new Set(message.references.map((r) => r.index)), [message.references]);
  const ordered = useMemo(() => orderReferences(message.content, message.references), [message.content, message.references]);
  const { phase } = message;
  const working = phase === "pending" || phase === "retrieving" || phase === "streaming";

  // Scroll after React has un-hidden the list, then drop the highlight after a moment.
  useEffect(() => {
    if (highlighted == null) return;
    const el = document.getElementById(referenceCardId(message.id, highlighted));
    if (el) {
      el.scrollIntoView({ behavior: "smooth", block: "center" });
      el.focus({ preventScroll: true });
    }
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setHighlighted(null), HIGHLIGHT_MS);
    return () => {
      if (timer.current) clearTimeout(timer.current);
    };
  }, [highlighted, jump, message.id]);

  const onCite = (index: number) => {
    setRefsOpen(true);
    setHighlighted(index);
    setJump((j) => j + 1);
  };

  const error = message.error ? errorCopy(message.error.code, message.error.message) : null;

  return (
    <article data-testid="message-assistant" data-message-id={message.id} data-phase={phase} aria-busy={working} className="flex flex-col gap-1">
      <span className="sr-only">{t("chat.assistant")}</span>
      <div className="rounded-2xl rounded-bl-md border border-slate-200 bg-white px-3.5 py-3 shadow-sm">
        {message.steps?.length ? <AgentSteps steps={message.steps} live={working} /> : null}
        {(phase === "pending" || phase === "retrieving") && !message.content ? (
          <p data-testid="retrieval-indicator" className="flex items-center gap-2 text-sm text-slate-500">
            <Spinner className="h-3.5 w-3.5 text-indigo-500" />
            {t("chat.retrieving")}
          </p>
        ) : null}
        {phase === "streaming" && !message.content ? (
          <p className="flex items-center gap-2 text-sm text-slate-500">
            <Spinner className="h-3.5 w-3.5 text-indigo-500" />
            {typeof message.hitCount === "number" && message.hitCount > 0 ? t("chat.found", { count: message.hitCount }) : t("chat.thinking")}
          </p>
        ) : null}
        {message.content ? (
          <div data-testid="answer-content" className="relative">
            <MarkdownAnswer content={message.content} referenceIndexes={indexes} displayOf={ordered.displayOf} onCite={onCite} />
            {phase === "streaming" ? <span aria-hidden="true" className="ml-0.5 inline-block h-4 w-1.5 translate-y-0.5 animate-pulse rounded-sm bg-indigo-400" /> : null}
          </div>
        ) : null}
        {error ? (
          <div role="alert" data-testid="message-error" data-code={message.error?.code} className="mt-1 flex items-start gap-2 rounded-xl bg-rose-50 px-3 py-2.5 text-sm text-rose-900 ring-1 ring-inset ring-rose-200">
            <AlertIcon className="mt-0.5 shrink-0" />
            <div className="min-w-0 flex-1">
              <p className="font-medium">{error.text}</p>
              {error.next ? <p className="mt-0.5 text-xs opacity-90">{error.next}</p> : null}
            </div>
            {onRetry && message.question ? (
              <Button size="sm" variant="secondary" data-testid="retry-button" disabled={!canAsk} onClick={() => onRetry(message.id)}>
                <RefreshIcon />
                {t("common.retry")}
              </Button>
            ) : null}
          </div>
        ) : null}
        {phase === "stopped" ? (
          <p data-testid="stopped-indicator" className="mt-2 text-xs font-medium text-slate-500">
            {message.finishReason === "interrupted" ? t("chat.interrupted") : message.finishReason === "streaming" ? t("chat.streamingElsewhere") : t("chat.stopped")}
          </p>
        ) : null}
        {message.translatedQueries?.length ? (
          <p data-testid="translated-query" className="mt-2 text-xs text-slate-500">
            {t("chat.translatedQuery", { queries: message.translatedQueries.map((q) => `“${q.query}”`).join(" · ") })}
          </p>
        ) : null}
        {/* Said once, in the UI's language, and only under an answer that has text. */}
        {message.engine === "extractive" && !working && message.content ? (
          <p data-testid="extractive-note" className="mt-2 text-xs text-slate-500">
            {t("chat.extractive")}
          </p>
        ) : null}
        <SourceStatuses sources={message.sources} />
        <ReferenceList messageId={message.id} ordered={ordered} knowledgeId={knowledgeId} open={refsOpen} onToggle={() => setRefsOpen((v) => !v)} highlighted={highlighted} />
        {!working && message.content && (phase === "done" || phase === "stopped") ? (
          <AnswerActions message={message} canAsk={canAsk} onRegenerate={onRegenerate} onFeedback={onFeedback} />
        ) : null}
        {message.relatedQuestions && message.relatedQuestions.length > 0 && phase === "done" ? (
          <div className="mt-3">
            <p className="text-xs font-medium text-slate-500">{t("chat.related")}</p>
            <div className="mt-1.5 flex flex-wrap gap-1.5">
              {message.relatedQuestions.map((q) => (
                <button
                  key={q}
                  type="button"
                  disabled={!canAsk || !onAsk}
                  onClick={() => onAsk?.(q)}
                  className={cx("rounded-full border border-slate-200 bg-slate-50 px-2.5 py-1 text-xs text-slate-700 hover:border-indigo-300 hover:bg-indigo-50 disabled:opacity-60", focusRing)}
                >
                  {q}
                </button>
              ))}
            </div>
          </div>
        ) : null}
      </div>
    </article>
  );
}

const NOTICE_STATUSES = new Set(["timeout", "error", "unavailable", "empty"]);

/** One line per external source that did not contribute to this turn (its own status, SPEC §8). */
function SourceStatuses({ sources }: { sources: RetrievalSourceStatus[] | undefined }) {
  const t = useT();
  const notes = (sources ?? []).filter((s) => s.source_type !== KNOWLEDGE_SOURCE_TYPE && NOTICE_STATUSES.has(s.status));
  if (notes.length === 0) return null;
  return (
    <ul className="mt-2 flex flex-col gap-1" aria-label={t("knowledge.title")}>
      {notes.map((s) => (
        <li key={s.source_type} data-testid="source-status" data-source={s.source_type} data-status={s.status} className="flex items-center gap-1.5 text-xs text-amber-800">
          <ProviderBadge sourceType={s.source_type} />
          {t(`sources.status.${s.status}` as "sources.status.error", { name: s.source_type })}
        </li>
      ))}
    </ul>
  );
}
