"use client";
// 「引用来源 N 条」: numbered, collapsible cards under an answer (SPEC §11). The source line goes
// through the source-view registry and the opener registry; a type with no opener, or whose
// opener fails, is shown as plain text (name + metadata) rather than a link that does nothing.
import { createElement, useState, type ReactNode } from "react";
import type { SourceReference } from "@/components/api/types";
import { useT, type Translate } from "@/components/i18n/locale-store";
import { hasSourceOpener, openSource } from "@/components/sources/opener-registry";
import { getSourceView } from "@/components/sources/source-view-registry";
import { KNOWLEDGE_SOURCE_TYPE } from "@/components/sources/builtin-openers";
import { ProviderBadge } from "@/components/sources/provider-badge";
import { ChevronIcon } from "@/components/ui/icons";
import { cx } from "@/components/ui/cx";
import { focusRing } from "@/components/ui/button";
import type { NumberedReference, OrderedReferences } from "./citation-order";
import { quoteView } from "./quote-text";

const LONG_QUOTE = 140;

export function pageLabel(t: Translate, ref: Pick<SourceReference, "page_start" | "page_end">): string | null {
  const { page_start: a, page_end: b } = ref;
  if (a == null && b == null) return null;
  if (a == null || b == null || a === b) return t("refs.page", { page: (a ?? b)! });
  return t("refs.pages", { start: a, end: b });
}

export function referenceCardId(messageId: string, index: number): string {
  return `ref-${messageId}-${index}`;
}

function displayName(ref: SourceReference): string {
  return ref.file_name || ref.source_name || ref.source_id || ref.source_type;
}

function SourceLine({ reference, knowledgeId }: { reference: SourceReference; knowledgeId: string | null }) {
  const t = useT();
  const [failed, setFailed] = useState(false);
  // A registered view for this source type replaces the built-in line entirely.
  const view = getSourceView(reference.source_type);
  if (view) return createElement(view, { reference });
  const name = displayName(reference);
  const page = pageLabel(t, reference);
  const openable = hasSourceOpener(reference.source_type) && !failed;
  const meta: ReactNode[] = [];
  if (page) meta.push(<span key="p" data-testid="reference-page">{page}</span>);
  if (reference.heading_path) meta.push(<span key="h" className="truncate">{reference.heading_path}</span>);
  const isExternal = reference.source_type !== KNOWLEDGE_SOURCE_TYPE;
  // Provider metadata, bounded primitives already (normalized on the server), shown as text.
  const metadata = Object.entries(reference.metadata ?? {}).filter(([, v]) => v !== null && v !== "").slice(0, 6);
  return (
    <div className="min-w-0 flex-1">
      <p className="flex min-w-0 flex-wrap items-baseline gap-x-1.5 text-sm">
        {isExternal ? <ProviderBadge sourceType={reference.source_type} label={t("refs.externalBadge", { name: reference.source_type })} className="self-center" /> : null}
        {openable ? (
          <button
            type="button"
            data-testid="reference-open"
            aria-label={t("refs.open", { name })}
            onClick={async () => {
              const r = await openSource(reference, { knowledgeId });
              if (r !== "opened") setFailed(true);
            }}
            className={cx("max-w-full truncate rounded text-left font-medium text-indigo-700 underline-offset-2 hover:underline", focusRing)}
          >
            {name}
          </button>
        ) : (
          <span data-testid="reference-plain" className="max-w-full truncate font-medium text-slate-800">
            {name}
          </span>
        )}
        {meta.map((m, i) => (
          <span key={i} className="flex min-w-0 items-baseline gap-1.5 text-slate-500">
            <span aria-hidden="true">·</span>
            {m}
          </span>
        ))}
      </p>
      {isExternal || failed ? (
        <dl className="mt-0.5 flex flex-wrap gap-x-3 text-xs text-slate-500">
          <div className="flex gap-1">
            <dt>{t("refs.sourceType")}:</dt>
            <dd>{reference.source_type}</dd>
          </div>
          {reference.source_name && reference.source_name !== name ? (
            <div className="flex gap-1">
              <dt>{t("refs.source")}:</dt>
              <dd>{reference.source_name}</dd>
            </div>
          ) : null}
          {reference.source_id ? (
            <div className="flex min-w-0 gap-1">
              <dt>{t("refs.sourceId")}:</dt>
              <dd className="truncate">{reference.source_id}</dd>
            </div>
          ) : null}
          {reference.locator ? (
            <div className="flex min-w-0 gap-1" data-testid="reference-locator">
              <dt>{t("refs.locator")}:</dt>
              <dd className="truncate">{reference.locator}</dd>
            </div>
          ) : null}
          {metadata.map(([k, v]) => (
            <div key={k} className="flex min-w-0 gap-1" data-testid="reference-metadata">
              <dt>{k}:</dt>
              <dd className="truncate">{String(v)}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      {failed ? (
        <p role="status" className="mt-1 text-xs text-amber-700">
          {t("refs.openFailed")}
        </p>
      ) : null}
    </div>
  );
}

function Quote({ text }: { text: string }) {
  const t = useT();
  const [expanded, setExpanded] = useState(false);
  const view = quoteView(text);
  const long = view.kind === "table" ? view.rows.length > 3 : view.text.length > LONG_QUOTE;
  const clamp = long && !expanded;
  return (
    <div className="mt-2">
      {view.kind === "table" ? (
        <div data-testid="reference-quote" className="border-l-2 border-slate-200 pl-2.5 text-xs leading-relaxed text-slate-600">
          {view.before ? <p className="whitespace-pre-wrap break-words">{view.before}</p> : null}
          <div className="my-1 overflow-x-auto">
            <table data-testid="reference-quote-table" className="border-collapse text-[0.7rem]">
              <tbody>
                {(clamp ? view.rows.slice(0, 3) : view.rows).map((row, i) => (
                  <tr key={i} className={i === 0 ? "font-medium text-slate-700" : undefined}>
                    {row.map((cell, j) => (
                      <td key={j} className="border border-slate-200 px-1.5 py-0.5">
                        {cell}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {view.after && !clamp ? <p className="whitespace-pre-wrap break-words">{view.after}</p> : null}
        </div>
      ) : (
        <blockquote data-testid="reference-quote" className={cx("whitespace-pre-wrap break-words border-l-2 border-slate-200 pl-2.5 text-xs leading-relaxed text-slate-600", clamp && "line-clamp-3")}>{view.text}</blockquote>
      )}
      {long ? (
        <button type="button" aria-expanded={expanded} onClick={() => setExpanded((v) => !v)} className={cx("mt-1 rounded text-xs font-medium text-indigo-700 hover:underline", focusRing)}>
          {expanded ? t("refs.collapse") : t("refs.expand")}
        </button>
      ) : null}
    </div>
  );
}

export interface ReferenceListProps {
  messageId: string;
  /** The answer's references, cited ones first in citation order (see citation-order.ts). */
  ordered: OrderedReferences;
  knowledgeId: string | null;
  open: boolean;
  onToggle: () => void;
  /** The reference `index` whose card is highlighted (a marker was clicked). */
  highlighted: number | null;
}

function ReferenceCard({ messageId, item, knowledgeId, highlighted }: { messageId: string; item: NumberedReference; knowledgeId: string | null; highlighted: boolean }) {
  const t = useT();
  const ref = item.reference;
  return (
    <li
      id={referenceCardId(messageId, ref.index)}
      data-testid="reference-card"
      data-index={item.display}
      data-ref-index={ref.index}
      data-highlighted={highlighted ? "true" : undefined}
      tabIndex={-1}
      className={cx(
        "rounded-xl border bg-white p-3 transition-shadow duration-300 focus:outline-none",
        highlighted ? "border-indigo-400 shadow-[0_0_0_3px_rgba(99,102,241,0.25)]" : "border-slate-200",
      )}
    >
      <div className="flex items-start gap-2">
        <span className="mt-0.5 shrink-0 rounded bg-slate-100 px-1.5 text-xs font-semibold text-slate-700">[{item.display}]</span>
        <SourceLine reference={ref} knowledgeId={knowledgeId} />
        {typeof ref.score === "number" ? (
          <span className="shrink-0 text-xs tabular-nums text-slate-500" title={t("refs.score", { score: ref.score.toFixed(2) })}>
            {t("refs.score", { score: ref.score.toFixed(2) })}
          </span>
        ) : null}
      </div>
      {ref.quote ? <Quote text={ref.quote} /> : null}
    </li>
  );
}

export function ReferenceList({ messageId, ordered, knowledgeId, open, onToggle, highlighted }: ReferenceListProps) {
  const t = useT();
  const [othersOpen, setOthersOpen] = useState(false);
  const listId = `refs-${messageId}`;
  const othersId = `refs-other-${messageId}`;
  const { cited, others } = ordered;
  // A highlighted passage the answer does not cite still shows (its card is opened with it).
  const othersShown = othersOpen || others.some((o) => o.reference.index === highlighted);
  if (cited.length === 0 && others.length === 0) return null;
  return (
    <section className="mt-3" aria-label={t("refs.title", { count: cited.length })}>
      {cited.length > 0 ? (
        <>
          <button
            type="button"
            aria-expanded={open}
            aria-controls={listId}
            data-testid="references-toggle"
            onClick={onToggle}
            className={cx("inline-flex items-center gap-1 rounded-md px-1 py-0.5 text-xs font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900", focusRing)}
          >
            <ChevronIcon className={cx("transition-transform", open ? "" : "-rotate-90")} width={14} height={14} />
            {t("refs.title", { count: cited.length })}
          </button>
          <ol id={listId} hidden={!open} data-testid="cited-references" className="mt-2 flex flex-col gap-2">
            {cited.map((item) => (
              <ReferenceCard key={item.reference.ref_id || item.reference.index} messageId={messageId} item={item} knowledgeId={knowledgeId} highlighted={highlighted === item.reference.index} />
            ))}
          </ol>
        </>
      ) : null}
      {others.length > 0 ? (
        <div className="mt-2">
          <button
            type="button"
            aria-expanded={othersShown}
            aria-controls={othersId}
            data-testid="other-references-toggle"
            onClick={() => setOthersOpen((v) => !v)}
            className={cx("inline-flex items-center gap-1 rounded-md px-1 py-0.5 text-xs font-medium text-slate-500 hover:bg-slate-100 hover:text-slate-800", focusRing)}
          >
            <ChevronIcon className={cx("transition-transform", othersShown ? "" : "-rotate-90")} width={14} height={14} />
            {t("refs.others", { count: others.length })}
          </button>
          <ol id={othersId} hidden={!othersShown} data-testid="other-references" className="mt-2 flex flex-col gap-2 opacity-90">
            {others.map((item) => (
              <ReferenceCard key={item.reference.ref_id || item.reference.index} messageId={messageId} item={item} knowledgeId={knowledgeId} highlighted={highlighted === item.reference.index} />
            ))}
          </ol>
        </div>
      ) : null}
    </section>
  );
}
