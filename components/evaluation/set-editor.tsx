"use client";
// Builds or edits a question set in the page (issue 21): one row per question with its
// expectation (file, page, passage) or the "should not be answered" mark. Generated drafts open
// here for the owner to edit before saving; each shows the passage it was drafted from.
import { useState } from "react";
import type { EvalQuestion } from "@/components/api/types";
import { useT } from "@/components/i18n/locale-store";
import { Button, focusRing } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";

const blank = (): EvalQuestion => ({ question: "", expected_file: null, expected_page: null, expected_text: null, unanswerable: false, chunk_id: null });
const input = cx("h-8 w-full rounded-md border border-slate-300 px-2 text-sm", focusRing);

export function SetEditor({
  initialName,
  initialQuestions,
  saving,
  error,
  onSave,
  onCancel,
}: {
  initialName: string;
  initialQuestions: EvalQuestion[];
  saving: boolean;
  error: string | null;
  onSave: (name: string, questions: EvalQuestion[]) => void;
  onCancel: () => void;
}) {
  const t = useT();
  const [name, setName] = useState(initialName);
  const [rows, setRows] = useState<EvalQuestion[]>(initialQuestions.length ? initialQuestions : [blank()]);
  const patch = (i: number, p: Partial<EvalQuestion>) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...p } : r)));
  const usable = rows.filter((r) => r.question.trim());
  const incomplete = usable.some((r) => !r.unanswerable && !r.expected_file && r.expected_page === null && !r.expected_text);

  return (
    <section className="flex flex-col gap-3 rounded-xl border border-indigo-200 bg-white p-4 shadow-sm" data-testid="eval-editor" aria-label={t("eval.editor.title")}>
      <h3 className="text-sm font-semibold text-slate-900">{t("eval.editor.title")}</h3>
      <label className="flex max-w-md flex-col gap-1 text-sm font-medium text-slate-700">
        {t("eval.editor.name")}
        <input data-testid="eval-editor-name" value={name} maxLength={120} onChange={(e) => setName(e.target.value)} className={cx(input, "h-9")} />
      </label>
      <div className={cx("overflow-x-auto", focusRing)} tabIndex={0} role="region" aria-label={t("eval.editor.title")}>
        <table className="w-full min-w-[48rem] text-left text-sm">
          <thead className="text-xs text-slate-600">
            <tr>
              <th scope="col" className="py-1 pr-2">{t("eval.col.question")}</th>
              <th scope="col" className="py-1 pr-2">{t("eval.col.file")}</th>
              <th scope="col" className="w-20 py-1 pr-2">{t("eval.col.page")}</th>
              <th scope="col" className="py-1 pr-2">{t("eval.col.passage")}</th>
              <th scope="col" className="py-1 pr-2">{t("eval.shouldNotAnswer")}</th>
              <th scope="col" className="py-1"><span className="sr-only">{t("eval.editor.remove")}</span></th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i} className="border-t border-slate-100 align-top" data-testid="eval-editor-row">
                <td className="py-1 pr-2">
                  <input aria-label={t("eval.col.question")} data-testid="eval-editor-question" value={r.question} maxLength={2000} onChange={(e) => patch(i, { question: e.target.value })} className={input} />
                  {r.passage ? <p className="mt-1 line-clamp-2 text-xs text-slate-600" data-testid="eval-editor-passage">{t("eval.editor.from", { passage: r.passage.slice(0, 160) })}</p> : null}
                </td>
                <td className="py-1 pr-2">
                  <input aria-label={t("eval.col.file")} value={r.expected_file ?? ""} maxLength={255} disabled={r.unanswerable} onChange={(e) => patch(i, { expected_file: e.target.value || null })} className={input} />
                </td>
                <td className="py-1 pr-2">
                  <input
                    aria-label={t("eval.col.page")}
                    type="number"
                    min={1}
                    value={r.expected_page ?? ""}
                    disabled={r.unanswerable}
                    onChange={(e) => patch(i, { expected_page: e.target.value ? Math.max(1, Math.round(Number(e.target.value))) : null })}
                    className={input}
                  />
                </td>
                <td className="py-1 pr-2">
                  <input aria-label={t("eval.col.passage")} value={r.expected_text ?? ""} maxLength={4000} disabled={r.unanswerable} onChange={(e) => patch(i, { expected_text: e.target.value || null })} className={input} />
                </td>
                <td className="py-1 pr-2 text-center">
                  <input
                    type="checkbox"
                    aria-label={t("eval.shouldNotAnswer")}
                    checked={r.unanswerable}
                    onChange={(e) => patch(i, { unanswerable: e.target.checked })}
                    className={cx("h-4 w-4 accent-indigo-600", focusRing)}
                  />
                </td>
                <td className="py-1">
                  <Button size="sm" variant="ghost" aria-label={t("eval.editor.removeRow", { n: i + 1 })} onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))}>
                    ×
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {incomplete ? <p className="text-xs text-amber-800">{t("eval.editor.incomplete")}</p> : null}
      {error ? (
        <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800" data-testid="eval-editor-error">
          {error}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button size="sm" data-testid="eval-editor-add" onClick={() => setRows((rs) => [...rs, blank()])}>
          {t("eval.editor.add")}
        </Button>
        <Button
          size="sm"
          variant="primary"
          data-testid="eval-editor-save"
          disabled={saving || !name.trim() || usable.length === 0 || incomplete}
          onClick={() => onSave(name.trim(), usable.map(({ passage: _passage, ...q }) => ({ ...q, question: q.question.trim() })))}
        >
          {t("eval.editor.save")}
        </Button>
        <Button size="sm" variant="ghost" onClick={onCancel}>
          {t("eval.editor.cancel")}
        </Button>
      </div>
    </section>
  );
}
