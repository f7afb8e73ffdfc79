"use client";
// The "检索测试 / Retrieval test" tab (owners and editors): one question through the chat's
// retrieval, every score that decided the rank with a one-line explanation, and whether grounded
// mode would answer at the chosen min_score. A result opens in the document viewer at its page.
import { useState, type FormEvent, type ReactNode } from "react";
import { useKnowledgeFiles, useRetrievalTest } from "@/components/api/queries";
import { isApiError } from "@/components/api/http-client";
import type { RetrievalHitScores, RetrievalTestHit, RetrievalTestResult } from "@/components/api/types";
import { useT } from "@/components/i18n/locale-store";
import type { MessageKey } from "@/components/i18n/dictionary";
import { Badge } from "@/components/ui/badge";
import { Button, focusRing } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { Spinner } from "@/components/ui/spinner";
import { useViewerStore } from "@/components/viewer/viewer-store";
import { useWorkspaceStore } from "@/components/workspace/workspace-store";

const DEFAULT_TOP_K = 8;
const DEFAULT_MIN_SCORE = 0.5;
const f3 = (x: number | null | undefined) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(3) : "—");

export function RetrievalTestPanel({ kbId }: { kbId: string }) {
  const t = useT();
  const files = useKnowledgeFiles(kbId);
  const test = useRetrievalTest(kbId);
  const [query, setQuery] = useState("");
  const [fileId, setFileId] = useState("");
  const [topK, setTopK] = useState(DEFAULT_TOP_K);
  const [minScore, setMinScore] = useState(DEFAULT_MIN_SCORE);
  const ready = (files.data ?? []).filter((f) => f.status === "success");

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!query.trim()) return;
    test.mutate({ query, file_ids: fileId ? [fileId] : null, top_k: topK, min_score: minScore });
  };

  return (
    <div className="flex min-h-0 flex-1 flex-col overflow-y-auto px-4 py-4 sm:px-6" data-testid="retrieval-test">
      <p className="text-sm text-slate-600">{t("rt.intro")}</p>
      <form onSubmit={submit} className="mt-3 grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm md:grid-cols-[1fr_auto]" aria-label={t("rt.title")}>
        <label className="flex flex-col gap-1 text-sm font-medium text-slate-700 md:col-span-2">
          {t("rt.query")}
          <input
            data-testid="rt-query"
            value={query}
            maxLength={2000}
            onChange={(e) => setQuery(e.target.value)}
            placeholder={t("rt.queryPlaceholder")}
            className={cx("h-10 rounded-lg border border-slate-300 px-3 text-sm font-normal", focusRing)}
          />
        </label>
        <div className="flex flex-wrap items-end gap-4 md:col-span-2">
          <label className="flex flex-col gap-1 text-sm font-medium text-slate-700">
            {t("rt.file")}
            <select data-testid="rt-file" value={fileId} onChange={(e) => setFileId(e.target.value)} className={cx("h-9 max-w-[16rem] rounded-lg border border-slate-300 px-2 text-sm font-normal", focusRing)}>
              <option value="">{t("rt.allFiles")}</option>
              {ready.map((f) => (
                <option key={f.id} value={f.id}>
                  {f.name}
                </option>
              ))}
            </select>
          </label>
          <label className="flex flex-col gap-1 text-sm font-medium text-slate-700">
            top_k
            <input
              data-testid="rt-topk"
              type="number"
              min={1}
              max={20}
              value={topK}
              onChange={(e) => setTopK(Math.max(1, Math.min(20, Math.round(Number(e.target.value) || DEFAULT_TOP_K))))}
              className={cx("h-9 w-20 rounded-lg border border-slate-300 px-2 text-sm font-normal", focusRing)}
            />
          </label>
          <label className="flex min-w-[12rem] flex-1 flex-col gap-1 text-sm font-medium text-slate-700">
            <span>
              min_score <output data-testid="rt-min-score-value">{minScore.toFixed(2)}</output>
            </span>
            <input data-testid="rt-min-score" type="range" min={0} max={1} step={0.05} value={minScore} onChange={(e) => setMinScore(Number(e.target.value))} className="accent-indigo-600" />
          </label>
          <Button type="submit" variant="primary" data-testid="rt-run" disabled={!query.trim() || test.isPending}>
            {test.isPending ? <Spinner className="h-4 w-4" /> : null}
            {t("rt.run")}
          </Button>
        </div>
      </form>
      {test.isError ? (
        <p role="alert" data-testid="rt-error" className="mt-3 rounded-xl bg-rose-50 px-3 py-2 text-sm text-rose-800">
          {isApiError(test.error) ? `${test.error.code}: ${test.error.message}` : String(test.error)}
        </p>
      ) : null}
      {test.data ? <Results kbId={kbId} result={test.data} /> : null}
    </div>
  );
}

function Results({ kbId, result }: { kbId: string; result: RetrievalTestResult }) {
  const t = useT();
  const g = result.grounded;
  const verdict = g.answer
    ? t("rt.verdict.ok", { min: result.min_score.toFixed(2) })
    : g.reason === "no_match"
      ? t("rt.verdict.noMatch")
      : g.reason === "answerability"
        ? t("rt.verdict.answerability", { cap: f3(g.cap), min: result.min_score.toFixed(2) })
        : t("rt.verdict.below", { best: f3(g.best), min: result.min_score.toFixed(2) });
  const a = result.answerability;
  return (
    <section className="mt-4 flex flex-col gap-3" aria-label={t("rt.results")}>
      <div data-testid="rt-verdict" data-answer={String(g.answer)} data-reason={g.reason} className={cx("rounded-xl px-4 py-3 text-sm ring-1 ring-inset", g.answer ? "bg-emerald-50 text-emerald-900 ring-emerald-200" : "bg-amber-50 text-amber-900 ring-amber-200")}>
        <p className="font-medium">{g.answer ? t("rt.wouldAnswer") : t("rt.wouldRefuse")}</p>
        <p className="mt-0.5">{verdict}</p>
        {result.translation.chat_would_translate ? <p className="mt-1 text-xs">{t("rt.translationNote", { langs: result.translation.document_languages.join(", ") })}</p> : null}
      </div>
      <div className="rounded-xl border border-slate-200 bg-white p-4 text-sm shadow-sm">
        <p className="text-slate-600">
          {t("rt.settings", { k: result.top_k, pool: result.candidate_pool, ms: result.took_ms })} · {t("rt.signals", { vector: result.signals.vector, rerank: result.signals.rerank })}
        </p>
        {a ? (
          <p data-testid="rt-answerability" className="mt-1 text-slate-600">
            {t("rt.answerability", { p: f3(a.probability), cap: f3(a.cap), tau: a.tau === null ? "—" : String(a.tau), absent: (100 * a.absentShare).toFixed(0) })}
          </p>
        ) : null}
        <p className="mt-2 flex flex-wrap gap-1.5" aria-label={t("rt.terms")}>
          {result.terms.map((x) => (
            <Badge key={x.term} tone={x.df === 0 ? "warn" : "neutral"} data-testid="rt-term">
              {x.term} · df {x.df} · {(100 * x.weight).toFixed(0)}%
            </Badge>
          ))}
        </p>
      </div>
      {result.hits.length === 0 ? <p className="text-sm text-slate-500">{t("rt.noHits")}</p> : null}
      <ol className="flex flex-col gap-3">
        {result.hits.map((h) => (
          <HitCard key={h.chunk_id} kbId={kbId} hit={h} />
        ))}
      </ol>
    </section>
  );
}

function Highlighted({ text, ranges }: { text: string; ranges: [number, number][] }) {
  const out: ReactNode[] = [];
  let at = 0;
  ranges.forEach(([a, b], i) => {
    if (a > at) out.push(text.slice(at, a));
    out.push(
      <mark key={i} className="rounded bg-amber-200/70 px-0.5 text-inherit">
        {text.slice(a, b)}
      </mark>,
    );
    at = b;
  });
  if (at < text.length) out.push(text.slice(at));
  return <>{out}</>;
}

const SCORE_ROWS: { key: keyof RetrievalHitScores; label: MessageKey; explain: MessageKey }[] = [
  { key: "lexicalRaw", label: "rt.score.lexicalRaw", explain: "rt.explain.lexicalRaw" },
  { key: "lexicalRatio", label: "rt.score.lexicalRatio", explain: "rt.explain.lexicalRatio" },
  { key: "lexicalCalibrated", label: "rt.score.lexicalCalibrated", explain: "rt.explain.lexicalCalibrated" },
  { key: "lexical", label: "rt.score.lexical", explain: "rt.explain.lexical" },
  { key: "vectorCosine", label: "rt.score.vectorCosine", explain: "rt.explain.vectorCosine" },
  { key: "vector", label: "rt.score.vector", explain: "rt.explain.vector" },
  { key: "fused", label: "rt.score.fused", explain: "rt.explain.fused" },
  { key: "rerank", label: "rt.score.rerank", explain: "rt.explain.rerank" },
  { key: "relevance", label: "rt.score.relevance", explain: "rt.explain.relevance" },
  { key: "final", label: "rt.score.final", explain: "rt.explain.final" },
  { key: "relevanceRank", label: "rt.score.relevanceRank", explain: "rt.explain.relevanceRank" },
  { key: "mmrPosition", label: "rt.score.mmrPosition", explain: "rt.explain.mmrPosition" },
];

function HitCard({ kbId, hit }: { kbId: string; hit: RetrievalTestHit }) {
  const t = useT();
  const openViewer = useViewerStore((s) => s.open);
  const setMainTab = useWorkspaceStore((s) => s.setMainTab);
  const pages = hit.page_start === null ? null : hit.page_end !== null && hit.page_end !== hit.page_start ? `${hit.page_start}–${hit.page_end}` : String(hit.page_start);
  return (
    <li data-testid="rt-hit" data-rank={hit.rank} data-passes={String(hit.passes_min_score)} className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-semibold text-slate-900">#{hit.rank}</span>
        <span className="font-medium text-slate-800">{hit.file_name}</span>
        {pages ? <span className="text-slate-500">{t("rt.page", { pages })}</span> : null}
        {hit.heading_path ? <span className="truncate text-slate-500">· {hit.heading_path}</span> : null}
        <Badge tone={hit.passes_min_score ? "success" : "warn"} className="ml-auto" data-testid="rt-hit-score">
          {f3(hit.score)}
        </Badge>
      </div>
      <blockquote data-testid="rt-hit-quote" className="mt-2 whitespace-pre-wrap border-l-2 border-slate-200 pl-3 text-sm text-slate-700">
        <Highlighted text={hit.quote} ranges={hit.highlights} />
      </blockquote>
      {hit.scores ? (
        <table className="mt-3 w-full text-left text-xs" data-testid="rt-scores">
          <tbody>
            {SCORE_ROWS.map((r) => (
              <tr key={r.key} className="border-t border-slate-100" data-score={r.key}>
                <th scope="row" className="py-1 pr-3 font-medium text-slate-700">
                  {t(r.label)}
                </th>
                <td className="py-1 pr-3 font-mono tabular-nums text-slate-900">{r.key === "relevanceRank" || r.key === "mmrPosition" ? String(hit.scores![r.key]) : f3(hit.scores![r.key] as number | null)}</td>
                <td className="py-1 text-slate-500">{t(r.explain)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {hit.file_id ? (
        <Button
          size="sm"
          variant="secondary"
          className="mt-3"
          data-testid="rt-open"
          onClick={() => {
            openViewer({ kbId, fileId: hit.file_id!, fileName: hit.file_name, page: hit.page_start, quote: hit.quote, chunkId: hit.chunk_id });
            setMainTab("viewer");
          }}
        >
          {t("rt.open")}
        </Button>
      ) : null}
    </li>
  );
}
