"use client";
// The "反馈 / Feedback" tab (owners and editors): the KB's rated answers, newest first, each
// with its question, the answer's start, the comment and who rated it; "more" pages on.
import { useState } from "react";
import { useKnowledgeFeedback } from "@/components/api/queries";
import { isApiError } from "@/components/api/http-client";
import { useLocale, useT } from "@/components/i18n/locale-store";
import { formatTime } from "@/components/assistant/conversation-history";
import { Button, focusRing } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { EmptyState } from "@/components/ui/empty-state";
import { ThumbDownIcon, ThumbUpIcon } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";

type Filter = "" | "up" | "down";

export function FeedbackPanel({ kbId }: { kbId: string }) {
  const t = useT();
  const locale = useLocale();
  const [filter, setFilter] = useState<Filter>("");
  const q = useKnowledgeFeedback(kbId, filter);
  const items = q.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <div className="flex min-h-0 flex-1 flex-col overflow-y-auto px-4 py-4 sm:px-6" data-testid="feedback-panel">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div>
          <h3 className="text-sm font-semibold text-slate-900">{t("feedback.title")}</h3>
          <p className="text-xs text-slate-600">{t("feedback.hint")}</p>
        </div>
        <div role="group" aria-label={t("feedback.filter")} className="flex gap-1">
          {(["", "up", "down"] as const).map((f) => (
            <button
              key={f || "all"}
              type="button"
              aria-pressed={filter === f}
              data-testid={`feedback-filter-${f || "all"}`}
              onClick={() => setFilter(f)}
              className={cx("rounded-full border px-2.5 py-1 text-xs font-medium", focusRing, filter === f ? "border-indigo-300 bg-indigo-50 text-indigo-800" : "border-slate-200 bg-white text-slate-700 hover:bg-slate-50")}
            >
              {f === "" ? t("feedback.all") : f === "up" ? t("convo.up") : t("convo.down")}
            </button>
          ))}
        </div>
      </div>
      {q.isPending ? (
        <p className="mt-4 flex items-center gap-2 text-sm text-slate-500">
          <Spinner /> {t("common.loading")}
        </p>
      ) : q.isError ? (
        <p role="alert" className="mt-4 rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800">
          {t("common.loadFailed", { message: isApiError(q.error) ? q.error.message : "" })}
        </p>
      ) : items.length === 0 ? (
        <div className="mt-6">
          <EmptyState icon={<ThumbUpIcon width={20} height={20} />} title={t("feedback.empty")} />
        </div>
      ) : (
        <ul className="mt-4 flex flex-col gap-2">
          {items.map((f) => (
            <li key={f.message_id} data-testid="feedback-item" data-rating={f.rating} className="rounded-xl border border-slate-200 bg-white p-3 shadow-sm">
              <div className="flex items-center gap-2 text-xs text-slate-600">
                <span className={cx("inline-flex items-center gap-1 rounded-full px-2 py-0.5 font-medium", f.rating === "up" ? "bg-emerald-50 text-emerald-800" : "bg-rose-50 text-rose-800")}>
                  {f.rating === "up" ? <ThumbUpIcon width={12} height={12} /> : <ThumbDownIcon width={12} height={12} />}
                  {f.rating === "up" ? t("convo.up") : t("convo.down")}
                </span>
                <span>{t("feedback.by", { name: f.user_name, time: formatTime(f.rated_at, locale) })}</span>
              </div>
              <p className="mt-2 text-sm text-slate-900">
                <span className="font-medium">{t("feedback.question")}：</span>
                <span data-testid="feedback-question">{f.question}</span>
              </p>
              <p className="mt-1 line-clamp-3 text-sm text-slate-700">
                <span className="font-medium">{t("feedback.answer")}：</span>
                {f.answer_excerpt}
              </p>
              {f.comment ? (
                <blockquote data-testid="feedback-item-comment" className="mt-2 border-l-2 border-slate-300 pl-2 text-sm text-slate-800">
                  {f.comment}
                </blockquote>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {q.hasNextPage ? (
        <Button size="sm" className="mt-3 self-start" data-testid="feedback-more" disabled={q.isFetchingNextPage} onClick={() => void q.fetchNextPage()}>
          {t("feedback.more")}
        </Button>
      ) : null}
    </div>
  );
}
