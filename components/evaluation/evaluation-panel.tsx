"use client";
// The "评测 / Evaluation" tab (issue 21, owners and editors): question sets (uploaded as CSV or
// JSONL, built or edited in the page, or drafted from the KB by the chat model), runs as
// background jobs with progress (pushed over each run's events stream, use-run-events.ts) and
// cancel, a run's metrics, charts and per-question table, two runs side by side, and a run's
// CSV export.
import { useRef, useState, type ChangeEvent } from "react";
import { isApiError } from "@/components/api/http-client";
import { useEvaluation, useEvaluationMutations, useEvaluationResults, useEvaluationSet } from "@/components/api/queries";
import type { EvalQuestion, EvalRun, EvalSetDetail } from "@/components/api/types";
import { useT } from "@/components/i18n/locale-store";
import { Button, focusRing } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { Spinner } from "@/components/ui/spinner";
import { MetricCards, ResultsTable, RunCharts, RunCompare, RunProgress, RunSettingsLine, RunStatusBadge, f3 } from "./run-views";
import { SetEditor } from "./set-editor";
import { needsEvaluationPolling, useRunEvents } from "./use-run-events";

type Editing = { mode: "new"; questions: EvalQuestion[]; name: string } | { mode: "edit"; id: string } | null;
const errText = (e: unknown) => (isApiError(e) ? `${e.code}: ${e.message}` : e ? String(e) : null);
const active = (r: EvalRun) => r.status === "queued" || r.status === "running";

export function EvaluationPanel({ kbId }: { kbId: string }) {
  const t = useT();
  const overview = useEvaluation(kbId, needsEvaluationPolling);
  useRunEvents(kbId, overview.data?.runs);
  const m = useEvaluationMutations(kbId);
  const fileRef = useRef<HTMLInputElement>(null);
  const [uploaded, setUploaded] = useState<EvalSetDetail | null>(null);
  const [editing, setEditing] = useState<Editing>(null);
  const [minScore, setMinScore] = useState<number | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [compare, setCompare] = useState<string[]>([]);
  const data = overview.data;
  const min = minScore ?? data?.default_min_score ?? 0.5;
  const runs = data?.runs ?? [];
  const shown = runs.find((r) => r.id === selected) ?? runs.find((r) => r.status === "succeeded") ?? runs[0] ?? null;
  const pair = compare.map((id) => runs.find((r) => r.id === id)).filter((r): r is EvalRun => !!r);

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const f = e.target.files?.[0];
    e.target.value = "";
    if (!f) return;
    const format = /\.csv$/i.test(f.name) ? "csv" : "jsonl";
    const name = f.name.replace(/\.(csv|jsonl|json|txt)$/i, "").slice(0, 120) || f.name.slice(0, 120);
    setUploaded(null);
    m.upload.mutate({ name, format, content: await f.text() }, { onSuccess: (s) => setUploaded(s) });
  };
  const generate = () =>
    m.generate.mutate(10, { onSuccess: (d) => setEditing({ mode: "new", questions: d.questions, name: t("eval.generatedName") }) });
  const toggleCompare = (id: string) => setCompare((c) => (c.includes(id) ? c.filter((x) => x !== id) : [...c.slice(-1), id]));

  if (overview.isPending) return <div className="flex flex-1 items-center justify-center"><Spinner className="h-5 w-5" /></div>;
  if (overview.isError) return <p role="alert" className="m-4 rounded-xl bg-rose-50 px-3 py-2 text-sm text-rose-800">{errText(overview.error)}</p>;

  return (
    <div className="flex min-h-0 flex-1 flex-col gap-4 overflow-y-auto px-4 py-4 sm:px-6" data-testid="evaluation">
      <p className="text-sm text-slate-600">{t("eval.intro")}</p>

      <section className="flex flex-col gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm" aria-labelledby="eval-sets-title">
        <h2 id="eval-sets-title" className="text-sm font-semibold text-slate-900">{t("eval.sets.title")}</h2>
        <div className="flex flex-wrap items-center gap-2">
          <input ref={fileRef} type="file" accept=".csv,.jsonl,.json,.txt,text/csv" className="sr-only" data-testid="eval-upload" aria-label={t("eval.upload")} onChange={onFile} />
          <Button size="sm" variant="primary" data-testid="eval-upload-button" onClick={() => fileRef.current?.click()} disabled={m.upload.isPending}>
            {m.upload.isPending ? <Spinner className="h-4 w-4" /> : null}
            {t("eval.upload")}
          </Button>
          <Button size="sm" data-testid="eval-new-set" onClick={() => setEditing({ mode: "new", questions: [], name: t("eval.newSetName") })}>
            {t("eval.newSet")}
          </Button>
          <Button size="sm" data-testid="eval-generate" onClick={generate} disabled={!data?.can_generate || m.generate.isPending} title={data?.can_generate ? undefined : t("eval.generateNeedsModel")}>
            {m.generate.isPending ? <Spinner className="h-4 w-4" /> : null}
            {t("eval.generate")}
          </Button>
          {!data?.can_generate ? <span className="text-xs text-slate-600">{t("eval.generateNeedsModel")}</span> : null}
        </div>
        <p className="text-xs text-slate-600">{t("eval.formatHint", { max: data?.max_questions ?? 10000 })}</p>
        {m.upload.isError || m.generate.isError ? (
          <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800" data-testid="eval-upload-error">
            {errText(m.upload.error ?? m.generate.error)}
          </p>
        ) : null}
        {uploaded ? (
          <div role="status" className={cx("rounded-lg px-3 py-2 text-sm", uploaded.parse_error_count ? "bg-amber-50 text-amber-900" : "bg-emerald-50 text-emerald-900")} data-testid="eval-upload-result">
            <p>{t("eval.uploaded", { name: uploaded.name, n: uploaded.question_count, bad: uploaded.parse_error_count })}</p>
            {uploaded.parse_errors.length ? (
              <ul className="mt-1 list-disc pl-5 text-xs" data-testid="eval-parse-errors">
                {uploaded.parse_errors.slice(0, 20).map((e, i) => (
                  <li key={i} data-line={e.line}>{t("eval.parseError", { line: e.line, message: e.message })}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}

        {editing ? <EditorHost kbId={kbId} editing={editing} onDone={() => setEditing(null)} /> : null}

        {data?.sets.length ? (
          <div className="flex flex-col gap-2">
            <label className="flex max-w-sm flex-col gap-1 text-sm font-medium text-slate-700">
              <span>
                min_score <output data-testid="eval-min-score-value">{min.toFixed(2)}</output>
              </span>
              <input data-testid="eval-min-score" type="range" min={0} max={1} step={0.05} value={min} onChange={(e) => setMinScore(Number(e.target.value))} className="accent-indigo-600" />
            </label>
            <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200" data-testid="eval-sets">
              {data.sets.map((s) => (
                <li key={s.id} className="flex flex-wrap items-center gap-2 px-3 py-2 text-sm" data-testid="eval-set" data-name={s.name}>
                  <span className="min-w-0 flex-1 truncate font-medium text-slate-900">{s.name}</span>
                  <span className="text-xs text-slate-600">{t("eval.setCount", { n: s.question_count })}</span>
                  {s.parse_error_count ? <span className="text-xs text-amber-800">{t("eval.setBadRows", { n: s.parse_error_count })}</span> : null}
                  <Button size="sm" variant="primary" data-testid="eval-run-set" disabled={m.run.isPending} onClick={() => m.run.mutate({ set_id: s.id, min_score: min }, { onSuccess: (r) => setSelected(r.id) })}>
                    {t("eval.run")}
                  </Button>
                  <Button size="sm" onClick={() => setEditing({ mode: "edit", id: s.id })}>{t("eval.edit")}</Button>
                  <Button size="sm" variant="ghost" onClick={() => m.removeSet.mutate(s.id)} aria-label={t("eval.deleteSet", { name: s.name })}>
                    {t("eval.delete")}
                  </Button>
                </li>
              ))}
            </ul>
            {m.run.isError ? <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800">{errText(m.run.error)}</p> : null}
          </div>
        ) : (
          <p className="text-sm text-slate-600" data-testid="eval-no-sets">{t("eval.noSets")}</p>
        )}
      </section>

      <section className="flex flex-col gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm" aria-labelledby="eval-runs-title">
        <h2 id="eval-runs-title" className="text-sm font-semibold text-slate-900">{t("eval.runs.title")}</h2>
        {runs.length ? (
          <>
            <p className="text-xs text-slate-600">{t("eval.compareHint")}</p>
            <div className={cx("overflow-x-auto", focusRing)} tabIndex={0} role="region" aria-labelledby="eval-runs-title">
              <table className="w-full text-left text-sm" data-testid="eval-runs">
                <thead className="text-xs text-slate-600">
                  <tr>
                    <th scope="col" className="py-1 pr-2">{t("eval.compare.pick")}</th>
                    <th scope="col" className="py-1 pr-2">{t("eval.col.set")}</th>
                    <th scope="col" className="py-1 pr-2">{t("eval.col.status")}</th>
                    <th scope="col" className="py-1 pr-2">{t("eval.col.progress")}</th>
                    <th scope="col" className="py-1 pr-2">min_score</th>
                    <th scope="col" className="py-1 pr-2">nDCG@10</th>
                    <th scope="col" className="py-1"><span className="sr-only">{t("eval.col.actions")}</span></th>
                  </tr>
                </thead>
                <tbody>
                  {runs.map((r) => (
                    <tr key={r.id} className={cx("border-t border-slate-100", shown?.id === r.id && "bg-indigo-50/50")} data-testid="eval-run" data-run-id={r.id} data-status={r.status}>
                      <td className="py-1.5 pr-2">
                        <input type="checkbox" aria-label={t("eval.compare.pickRun", { name: r.set_name, at: new Date(r.created_at).toLocaleString() })} data-testid="eval-compare-pick" checked={compare.includes(r.id)} disabled={r.status !== "succeeded" && r.status !== "cancelled"} onChange={() => toggleCompare(r.id)} className={cx("h-4 w-4 accent-indigo-600", focusRing)} />
                      </td>
                      <td className="py-1.5 pr-2">
                        <div className="font-medium text-slate-900">{r.set_name}</div>
                        <div className="text-xs text-slate-600">{new Date(r.created_at).toLocaleString()}</div>
                      </td>
                      <td className="py-1.5 pr-2"><RunStatusBadge run={r} /></td>
                      <td className="py-1.5 pr-2"><RunProgress run={r} /></td>
                      <td className="py-1.5 pr-2 tabular-nums">{r.settings.min_score.toFixed(2)}</td>
                      <td className="py-1.5 pr-2 tabular-nums">{f3(r.metrics?.ndcg_at_10)}</td>
                      <td className="py-1.5">
                        <div className="flex flex-wrap gap-1">
                          <Button size="sm" variant="subtle" data-testid="eval-run-open" aria-pressed={shown?.id === r.id} onClick={() => setSelected(r.id)}>{t("eval.open")}</Button>
                          {active(r) ? (
                            <Button size="sm" variant="danger" data-testid="eval-run-cancel" onClick={() => m.cancel.mutate(r.id)}>{t("eval.cancel")}</Button>
                          ) : (
                            <a href={`/v1/knowledges/${encodeURIComponent(kbId)}/evaluation/runs/${encodeURIComponent(r.id)}/export`} download className={cx("inline-flex h-8 items-center rounded-lg border border-slate-300 px-3 text-sm text-slate-700 hover:bg-slate-50", focusRing)} data-testid="eval-run-export">
                              {t("eval.export")}
                            </a>
                          )}
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        ) : (
          <p className="text-sm text-slate-600" data-testid="eval-no-runs">{t("eval.noRuns")}</p>
        )}
      </section>

      {pair.length === 2 ? <RunCompare a={pair[0]!} b={pair[1]!} /> : null}
      {shown ? <RunDetail kbId={kbId} run={shown} /> : null}
    </div>
  );
}

function EditorHost({ kbId, editing, onDone }: { kbId: string; editing: NonNullable<Editing>; onDone: () => void }) {
  const m = useEvaluationMutations(kbId);
  const set = useEvaluationSet(kbId, editing.mode === "edit" ? editing.id : null);
  if (editing.mode === "edit" && !set.data) return set.isError ? <p role="alert" className="text-sm text-rose-800">{errText(set.error)}</p> : <Spinner className="h-4 w-4" />;
  const mutation = editing.mode === "edit" ? m.update : m.create;
  return (
    <SetEditor
      key={editing.mode === "edit" ? editing.id : "new"}
      initialName={editing.mode === "edit" ? set.data!.name : editing.name}
      initialQuestions={editing.mode === "edit" ? set.data!.questions : editing.questions}
      saving={mutation.isPending}
      error={errText(mutation.error)}
      onCancel={onDone}
      onSave={(name, questions) =>
        editing.mode === "edit" ? m.update.mutate({ id: editing.id, name, questions }, { onSuccess: onDone }) : m.create.mutate({ name, questions }, { onSuccess: onDone })
      }
    />
  );
}

function RunDetail({ kbId, run }: { kbId: string; run: EvalRun }) {
  const t = useT();
  const [page, setPage] = useState(1);
  const [filter, setFilter] = useState("all");
  const results = useEvaluationResults(kbId, run, page, filter);
  const total = results.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / 50));
  return (
    <section className="flex flex-col gap-3" data-testid="eval-run-detail" data-run-id={run.id} aria-label={t("eval.detail.title", { name: run.set_name })}>
      <div className="flex flex-wrap items-center gap-2">
        <h2 className="text-sm font-semibold text-slate-900">{t("eval.detail.title", { name: run.set_name })}</h2>
        <RunStatusBadge run={run} />
      </div>
      <RunSettingsLine run={run} />
      {run.error_message ? <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800">{run.error_message}</p> : null}
      {active(run) ? <RunProgress run={run} /> : null}
      {run.metrics ? (
        <>
          <MetricCards metrics={run.metrics} />
          <p className="text-xs text-slate-600">{t("eval.counts", { a: run.metrics.answerable, u: run.metrics.unanswerable, f: run.metrics.failed })}</p>
          <RunCharts metrics={run.metrics} />
        </>
      ) : null}
      <div className="flex flex-wrap items-center gap-2">
        <label className="flex items-center gap-2 text-sm text-slate-700">
          {t("eval.filter")}
          <select data-testid="eval-results-filter" value={filter} onChange={(e) => { setFilter(e.target.value); setPage(1); }} className={cx("h-8 rounded-md border border-slate-300 px-2 text-sm", focusRing)}>
            <option value="all">{t("eval.filter.all")}</option>
            <option value="missed">{t("eval.filter.missed")}</option>
            <option value="refused">{t("eval.filter.refused")}</option>
            <option value="unanswerable">{t("eval.filter.unanswerable")}</option>
          </select>
        </label>
        <span className="text-xs text-slate-600">{t("eval.results.count", { n: total })}</span>
        {pages > 1 ? (
          <span className="flex items-center gap-1">
            <Button size="sm" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>{t("eval.prev")}</Button>
            <span className="text-xs tabular-nums text-slate-600">{page} / {pages}</span>
            <Button size="sm" disabled={page >= pages} onClick={() => setPage((p) => p + 1)}>{t("eval.next")}</Button>
          </span>
        ) : null}
      </div>
      {results.data ? <ResultsTable rows={results.data.items} /> : <Spinner className="h-4 w-4" />}
    </section>
  );
}
