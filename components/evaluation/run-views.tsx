"use client";
// Presentational parts of the evaluation tab (issue 21): a run's metrics, its charts (recharts),
// the per-question table and two runs side by side. They take data only, so the flow gallery
// shows them with fixtures.
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { EvalResultRow, EvalRun, EvalRunMetrics } from "@/components/api/types";
import { useT } from "@/components/i18n/locale-store";
import type { MessageKey } from "@/components/i18n/dictionary";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { ProgressBar } from "@/components/ui/progress-bar";
import { focusRing } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";

export const pct = (x: number | null | undefined) => (typeof x === "number" && Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "—");
export const f3 = (x: number | null | undefined) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(3) : "—");

const STATUS_TONE: Record<EvalRun["status"], BadgeTone> = { queued: "neutral", running: "info", succeeded: "success", failed: "error", cancelled: "warn" };

export function RunStatusBadge({ run }: { run: EvalRun }) {
  const t = useT();
  return (
    <Badge tone={STATUS_TONE[run.status]} data-testid="eval-run-status" data-status={run.status}>
      {t(`eval.status.${run.status}` as MessageKey)}
    </Badge>
  );
}

export function RunProgress({ run }: { run: EvalRun }) {
  const t = useT();
  const value = run.total ? (run.done / run.total) * 100 : 0;
  return (
    <div className="flex min-w-[8rem] flex-col gap-1" data-testid="eval-run-progress" data-done={run.done} data-total={run.total}>
      <ProgressBar value={value} label={t("eval.progressLabel", { name: run.set_name })} tone={run.status === "failed" ? "error" : run.status === "succeeded" ? "success" : "brand"} />
      <span className="text-xs text-slate-600">{t("eval.progress", { done: run.done, total: run.total })}</span>
    </div>
  );
}

/** The headline figures, each with its test id (eval-metric-<key>). */
export const METRIC_KEYS = ["ndcg_at_10", "recall_at_5", "recall_at_20", "mrr_at_10", "refusal_rate_answerable", "refusal_rate_unanswerable"] as const;
type MetricKey = (typeof METRIC_KEYS)[number];
const isRate = (k: MetricKey) => k.startsWith("recall") || k.startsWith("refusal");
const fmt = (k: MetricKey, v: number | null) => (isRate(k) ? pct(v) : f3(v));

export function MetricCards({ metrics }: { metrics: EvalRunMetrics }) {
  const t = useT();
  return (
    <dl className="grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-6">
      {METRIC_KEYS.map((k) => (
        <div key={k} className="rounded-lg border border-slate-200 bg-white px-3 py-2">
          <dt className="text-xs text-slate-600">{t(`eval.metric.${k}` as MessageKey)}</dt>
          <dd className="mt-0.5 text-lg font-semibold tabular-nums text-slate-900" data-testid={`eval-metric-${k}`} data-value={metrics[k] ?? ""}>
            {fmt(k, metrics[k])}
          </dd>
        </div>
      ))}
    </dl>
  );
}

export function RunCharts({ metrics }: { metrics: EvalRunMetrics }) {
  const t = useT();
  const recall = metrics.recall_by_rank.map((r, i) => ({ k: i + 1, recall: Math.round(r * 1000) / 10 }));
  const hist = metrics.score_histogram.correct.map((c, i) => ({ bin: (i / 20).toFixed(2), correct: c, incorrect: metrics.score_histogram.incorrect[i] ?? 0 }));
  return (
    <div className="grid gap-3 lg:grid-cols-2">
      <figure className="rounded-xl border border-slate-200 bg-white p-3" data-testid="eval-chart-recall" aria-label={t("eval.chart.recall")}>
        <figcaption className="mb-2 text-sm font-medium text-slate-800">{t("eval.chart.recall")}</figcaption>
        <div className="h-56">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={recall} margin={{ top: 4, right: 12, bottom: 4, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
              <XAxis dataKey="k" tick={{ fontSize: 11, fill: "#475569" }} label={{ value: t("eval.chart.rank"), position: "insideBottomRight", offset: -2, fontSize: 11, fill: "#475569" }} />
              <YAxis domain={[0, 100]} unit="%" tick={{ fontSize: 11, fill: "#475569" }} width={44} />
              <Tooltip formatter={(v) => `${v}%`} labelFormatter={(k) => `Recall@${k}`} />
              <Line type="monotone" dataKey="recall" name={t("eval.chart.recallSeries")} stroke="#4f46e5" strokeWidth={2} dot={{ r: 2 }} isAnimationActive={false} />
            </LineChart>
          </ResponsiveContainer>
        </div>
      </figure>
      <figure className="rounded-xl border border-slate-200 bg-white p-3" data-testid="eval-chart-scores" aria-label={t("eval.chart.scores")}>
        <figcaption className="mb-2 text-sm font-medium text-slate-800">{t("eval.chart.scores")}</figcaption>
        <div className="h-56">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={hist} margin={{ top: 4, right: 12, bottom: 4, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
              <XAxis dataKey="bin" tick={{ fontSize: 10, fill: "#475569" }} interval={3} />
              <YAxis allowDecimals={false} tick={{ fontSize: 11, fill: "#475569" }} width={36} />
              <Tooltip />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              <Bar dataKey="correct" name={t("eval.chart.correct")} fill="#059669" isAnimationActive={false} />
              <Bar dataKey="incorrect" name={t("eval.chart.incorrect")} fill="#e11d48" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      </figure>
    </div>
  );
}

export function RunSettingsLine({ run }: { run: EvalRun }) {
  const t = useT();
  const s = run.settings;
  return (
    <p className="text-xs text-slate-600" data-testid="eval-run-settings">
      {t("eval.settingsLine", {
        min: s.min_score.toFixed(2),
        k: s.top_k,
        embedding: s.models.embedding ?? t("eval.none"),
        rerank: s.models.rerank ?? t("eval.none"),
        chat: s.models.chat ?? t("eval.none"),
        chunk: s.chunking.target_chars,
        overlap: s.chunking.overlap_chars,
        files: s.corpus.files,
        chunks: s.corpus.chunks,
      })}
    </p>
  );
}

export function ResultsTable({ rows }: { rows: EvalResultRow[] }) {
  const t = useT();
  if (!rows.length) return <p className="px-1 py-3 text-sm text-slate-600">{t("eval.results.empty")}</p>;
  return (
    // Focusable so a keyboard user can scroll the wide table (axe scrollable-region-focusable).
    <div className={cx("overflow-x-auto rounded-xl border border-slate-200 bg-white", focusRing)} tabIndex={0} role="region" aria-label={t("eval.col.question")}>
      <table className="w-full text-left text-sm" data-testid="eval-results">
        <thead className="bg-slate-50 text-xs text-slate-600">
          <tr>
            <th scope="col" className="px-3 py-2">#</th>
            <th scope="col" className="px-3 py-2">{t("eval.col.question")}</th>
            <th scope="col" className="px-3 py-2">{t("eval.col.expected")}</th>
            <th scope="col" className="px-3 py-2">{t("eval.col.top")}</th>
            <th scope="col" className="px-3 py-2">{t("eval.col.rank")}</th>
            <th scope="col" className="px-3 py-2">{t("eval.col.score")}</th>
            <th scope="col" className="px-3 py-2">{t("eval.col.verdict")}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.ordinal} className="border-t border-slate-100 align-top" data-testid="eval-result-row" data-rank={r.first_correct_rank ?? ""} data-refused={String(r.refused)}>
              <td className="px-3 py-2 tabular-nums text-slate-500">{r.ordinal + 1}</td>
              <td className="max-w-[16rem] px-3 py-2 text-slate-900">{r.question}</td>
              <td className="max-w-[14rem] px-3 py-2 text-xs text-slate-700">
                {r.answerable ? (
                  <>
                    {r.expected.file ? <div>{r.expected.file}</div> : null}
                    {r.expected.page !== null ? <div>{t("eval.page", { page: r.expected.page })}</div> : null}
                    {r.expected.text ? <div className="line-clamp-2 text-slate-600">“{r.expected.text}”</div> : null}
                  </>
                ) : (
                  <Badge tone="warn">{t("eval.shouldNotAnswer")}</Badge>
                )}
              </td>
              <td className="max-w-[18rem] px-3 py-2 text-xs">
                <ol className="flex flex-col gap-0.5">
                  {r.top_hits.slice(0, 3).map((h) => (
                    <li key={h.rank} className={cx("truncate", h.correct ? "font-medium text-emerald-800" : "text-slate-700")} title={h.snippet}>
                      {h.rank}. {h.file_name}
                      {h.page_start !== null ? ` · p.${h.page_start}` : ""} · {h.score.toFixed(3)}
                      {h.correct ? " ✓" : ""}
                    </li>
                  ))}
                  {r.error_message ? <li className="text-rose-800">{r.error_message}</li> : null}
                </ol>
              </td>
              <td className="px-3 py-2 tabular-nums" data-testid="eval-result-rank">{r.first_correct_rank ?? "—"}</td>
              <td className="px-3 py-2 tabular-nums">{f3(r.top_score)}</td>
              <td className="px-3 py-2">
                <Badge tone={r.refused ? (r.answerable ? "error" : "success") : r.answerable ? "success" : "error"}>{r.refused ? t("eval.refused") : t("eval.answered")}</Badge>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Two runs side by side: every headline figure with the change, and what differed in the settings. */
export function RunCompare({ a, b }: { a: EvalRun; b: EvalRun }) {
  const t = useT();
  const rows: { label: string; av: string; bv: string; delta: string; testid: string }[] = METRIC_KEYS.map((k) => {
    const x = a.metrics?.[k] ?? null;
    const y = b.metrics?.[k] ?? null;
    const d = x !== null && y !== null ? y - x : null;
    return { label: t(`eval.metric.${k}` as MessageKey), av: fmt(k, x), bv: fmt(k, y), delta: d === null ? "—" : `${d >= 0 ? "+" : ""}${isRate(k) ? `${(d * 100).toFixed(1)} pt` : d.toFixed(3)}`, testid: k };
  });
  const setting = (r: EvalRun) => ({
    min_score: r.settings.min_score.toFixed(2),
    embedding: r.settings.models.embedding ?? t("eval.none"),
    rerank: r.settings.models.rerank ?? t("eval.none"),
    chunking: `${r.settings.chunking.target_chars}/${r.settings.chunking.overlap_chars}`,
    corpus: `${r.settings.corpus.files} / ${r.settings.corpus.chunks}`,
  });
  const sa = setting(a);
  const sb = setting(b);
  return (
    <section className="rounded-xl border border-slate-200 bg-white p-4" data-testid="eval-compare" aria-label={t("eval.compare.title")}>
      <h3 className="text-sm font-semibold text-slate-900">{t("eval.compare.title")}</h3>
      <table className="mt-2 w-full text-left text-sm">
        <thead className="text-xs text-slate-600">
          <tr>
            <th scope="col" className="py-1 pr-3">{t("eval.compare.metric")}</th>
            <th scope="col" className="py-1 pr-3">A · {a.set_name} · {new Date(a.created_at).toLocaleString()}</th>
            <th scope="col" className="py-1 pr-3">B · {b.set_name} · {new Date(b.created_at).toLocaleString()}</th>
            <th scope="col" className="py-1">{t("eval.compare.delta")}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.testid} className="border-t border-slate-100" data-testid={`eval-compare-${r.testid}`}>
              <th scope="row" className="py-1 pr-3 font-normal text-slate-700">{r.label}</th>
              <td className="py-1 pr-3 tabular-nums">{r.av}</td>
              <td className="py-1 pr-3 tabular-nums">{r.bv}</td>
              <td className="py-1 tabular-nums text-slate-800">{r.delta}</td>
            </tr>
          ))}
          {(Object.keys(sa) as (keyof typeof sa)[]).map((k) => (
            <tr key={k} className={cx("border-t border-slate-100 text-xs", sa[k] !== sb[k] && "bg-amber-50")} data-testid={`eval-compare-setting-${k}`} data-differs={String(sa[k] !== sb[k])}>
              <th scope="row" className="py-1 pr-3 font-normal text-slate-600">{t(`eval.setting.${k}` as MessageKey)}</th>
              <td className="py-1 pr-3">{sa[k]}</td>
              <td className="py-1 pr-3">{sb[k]}</td>
              <td className="py-1">{sa[k] !== sb[k] ? t("eval.compare.changed") : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
