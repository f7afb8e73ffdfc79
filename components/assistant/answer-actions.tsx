"use client";
// The row under a finished answer: copy (with or without references), regenerate, and thumbs
// up/down feedback with an optional comment, stored with the message on the server.
import { useId, useState } from "react";
import type { MessageFeedback } from "@/components/api/types";
import { useT } from "@/components/i18n/locale-store";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { CopyIcon, RefreshIcon, ThumbDownIcon, ThumbUpIcon } from "@/components/ui/icons";
import { inputClass } from "@/components/ui/text-field";
import type { ChatMessage } from "./chat-reducer";
import { answerCopyText } from "./copy-text";

export interface AnswerActionsProps {
  message: ChatMessage;
  canAsk: boolean;
  onRegenerate?: (assistantId: string) => void;
  /** Saves the rating (null withdraws it); resolves when the server stored it. */
  onFeedback?: (assistantId: string, feedback: MessageFeedback | null) => Promise<unknown>;
}

export function AnswerActions({ message, canAsk, onRegenerate, onFeedback }: AnswerActionsProps) {
  const t = useT();
  const commentId = useId();
  const [copied, setCopied] = useState<"plain" | "refs" | "failed" | null>(null);
  const [draft, setDraft] = useState<"up" | "down" | null>(null);
  const [comment, setComment] = useState("");
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const rating = message.feedback?.rating ?? null;

  const copy = async (withRefs: boolean) => {
    const text = answerCopyText(message.content, message.references, withRefs, {
      references: t("convo.references"),
      page: (page) => t("convo.page", { page }),
    });
    try {
      await navigator.clipboard.writeText(text);
      setCopied(withRefs ? "refs" : "plain");
    } catch {
      setCopied("failed");
    }
    setTimeout(() => setCopied(null), 2000);
  };

  // A thumb is stored at once; the comment form stays open to add to it (`close` on submit).
  const send = async (feedback: MessageFeedback | null, close: boolean) => {
    if (!onFeedback) return;
    setSaving(true);
    try {
      await onFeedback(message.id, feedback);
      setSaved(!!feedback && close);
      if (close) setDraft(null);
    } catch {
      setSaved(false);
    } finally {
      setSaving(false);
    }
  };

  const rate = (r: "up" | "down") => {
    setSaved(false);
    if (rating === r && !draft) return void send(null, true); // a second press withdraws the rating
    const keep = message.feedback?.rating === r ? (message.feedback.comment ?? "") : "";
    setComment(keep);
    setDraft(r);
    void send({ rating: r, comment: keep || null }, false);
  };

  const serverReady = !!message.serverId;
  return (
    <div className="mt-2 flex flex-col gap-2">
      <div role="toolbar" aria-label={t("chat.assistant")} data-testid="answer-actions" className="flex flex-wrap items-center gap-1">
        <Button variant="ghost" size="sm" data-testid="copy-answer" onClick={() => void copy(false)}>
          <CopyIcon />
          {copied === "plain" ? t("convo.copied") : t("convo.copy")}
        </Button>
        {message.references.length > 0 ? (
          <Button variant="ghost" size="sm" data-testid="copy-answer-refs" onClick={() => void copy(true)}>
            <CopyIcon />
            {copied === "refs" ? t("convo.copied") : t("convo.copyWithRefs")}
          </Button>
        ) : null}
        {onRegenerate ? (
          <Button variant="ghost" size="sm" data-testid="regenerate-answer" title={t("convo.regenerateHint")} disabled={!canAsk || !serverReady} onClick={() => onRegenerate(message.id)}>
            <RefreshIcon />
            {t("convo.regenerate")}
          </Button>
        ) : null}
        {onFeedback ? (
          <span className="ml-auto flex items-center gap-0.5">
            {(["up", "down"] as const).map((r) => (
              <Button
                key={r}
                variant={rating === r ? "subtle" : "ghost"}
                size="icon"
                data-testid={`feedback-${r}`}
                aria-pressed={rating === r}
                aria-label={t(r === "up" ? "convo.up" : "convo.down")}
                title={t(r === "up" ? "convo.up" : "convo.down")}
                disabled={saving || !serverReady}
                onClick={() => rate(r)}
              >
                {r === "up" ? <ThumbUpIcon /> : <ThumbDownIcon />}
              </Button>
            ))}
          </span>
        ) : null}
      </div>
      {copied === "failed" ? (
        <p role="status" className="text-xs text-rose-700">
          {t("convo.copyFailed")}
        </p>
      ) : null}
      {draft ? (
        <form
          data-testid="feedback-form"
          className="flex flex-col gap-1.5 rounded-xl bg-slate-50 p-2.5 ring-1 ring-inset ring-slate-200"
          onSubmit={(e) => {
            e.preventDefault();
            void send({ rating: draft, comment: comment.trim() || null }, true);
          }}
        >
          <label htmlFor={commentId} className="text-xs font-medium text-slate-700">
            {t("convo.feedbackComment")}
          </label>
          <textarea id={commentId} data-testid="feedback-comment" rows={2} maxLength={1000} value={comment} onChange={(e) => setComment(e.target.value)} className={cx(inputClass, "resize-none")} />
          <p className="text-xs text-slate-500">{t("convo.feedbackVisible")}</p>
          <div className="flex justify-end gap-2">
            <Button size="sm" type="button" onClick={() => setDraft(null)}>
              {t("common.close")}
            </Button>
            <Button size="sm" variant="primary" type="submit" data-testid="feedback-send" disabled={saving}>
              {t("convo.feedbackSend")}
            </Button>
          </div>
        </form>
      ) : saved ? (
        <p role="status" data-testid="feedback-saved" className="text-xs text-slate-600">
          {t("convo.feedbackSaved")}
        </p>
      ) : null}
    </div>
  );
}
