"use client";
// Document viewer in the main area: PDF pages (pdf.js when registered, see pdf-page-seam) at the
// cited page; DOCX, Markdown, HTML and text as sanitized text chunks scrolled to the cited chunk.
// Everything is rendered as text: the server already sanitized it and React escapes it again.
import { createElement, useEffect, useMemo, useRef, useState, type ComponentType, type MouseEvent } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { DocumentContent } from "@/components/api/types";
import { useDocumentContent } from "@/components/api/queries";
import { isApiError, kbPath } from "@/components/api/http-client";
import { useErrorCopy, useT } from "@/components/i18n/locale-store";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { CloseIcon, DownloadIcon, FileIcon } from "@/components/ui/icons";
import { scrollWithin } from "@/components/ui/scroll-within";
import { Spinner } from "@/components/ui/spinner";
import { cx } from "@/components/ui/cx";
import { useMediaQuery } from "@/components/ui/use-media-query";
import { plainQuote } from "@/components/assistant/quote-text";
import { HighlightedText, TextPdfPage, getPdfPageRenderer, type PdfPageProps } from "./pdf-page-seam";
import { findQuoteRange, type TextRange } from "./quote-highlight";
import { useViewerStore, useViewerTarget, type ViewerTarget } from "./viewer-store";

interface Located {
  kind: "page" | "chunk";
  key: string | number | null;
  range: TextRange | null;
}

/** Where the target lands: the cited page (PDF) or chunk (others), and the quote within it. */
export function locateTarget(doc: DocumentContent, target: Pick<ViewerTarget, "page" | "quote" | "chunkId">): Located {
  const quote = target.quote ?? "";
  if (doc.pages && doc.pages.length > 0) {
    const page = doc.pages.find((p) => p.page === target.page) ?? null;
    const here = page && quote ? findQuoteRange(page.text, quote) : null;
    if (page && (!quote || here?.complete)) return { kind: "page", key: page.page, range: here };
    // A reference's page is where its passage starts; the sentence it quotes may sit on a later
    // page of that passage. The page holding the whole quote wins, the nearest first.
    if (quote) {
      const byDistance = [...doc.pages].sort((a, b) => Math.abs(a.page - (target.page ?? 1)) - Math.abs(b.page - (target.page ?? 1)));
      for (const p of byDistance) {
        const range = findQuoteRange(p.text, quote);
        if (range?.complete) return { kind: "page", key: p.page, range };
      }
      if (page) return { kind: "page", key: page.page, range: here };
      for (const p of byDistance) {
        const range = findQuoteRange(p.text, quote);
        if (range) return { kind: "page", key: p.page, range };
      }
    }
    return { kind: "page", key: target.page, range: null };
  }
  const byId = target.chunkId ? doc.chunks.find((c) => c.id === target.chunkId) : undefined;
  if (byId) return { kind: "chunk", key: byId.id, range: quote ? findQuoteRange(byId.content, quote) : null };
  if (quote) {
    for (const c of doc.chunks) {
      const range = findQuoteRange(c.content, quote);
      if (range) return { kind: "chunk", key: c.id, range };
    }
  }
  const byPage = target.page != null ? doc.chunks.find((c) => c.page_start != null && c.page_start <= target.page! && (c.page_end ?? c.page_start) >= target.page!) : undefined;
  return { kind: "chunk", key: byPage?.id ?? null, range: null };
}

/** `pdfPageRenderer` overrides the registered one (the flow gallery has no originals to fetch). */
/**
 * With a page renderer that draws the original (pdf.js), a PDF is shown page by page even when
 * the server sends only chunks: each page's text (for locating the quote, and the renderer's
 * text fallback) is rebuilt from the chunks whose page range covers it.
 */
export function withPdfPages(doc: DocumentContent, drawsOriginal: boolean): DocumentContent {
  if ((doc.pages && doc.pages.length > 0) || !drawsOriginal || doc.file.file_type.toLowerCase() !== "pdf") return doc;
  const paged = doc.chunks.filter((c) => c.page_start != null);
  const last = Math.max(doc.file.page_count ?? 0, ...paged.map((c) => c.page_end ?? c.page_start!));
  if (last < 1) return doc;
  const sorted = [...paged].sort((a, b) => a.ordinal - b.ordinal);
  const pages = Array.from({ length: last }, (_, i) => {
    const page = i + 1;
    const text = sorted
      .filter((c) => c.page_start! <= page && (c.page_end ?? c.page_start!) >= page)
      .map((c) => c.content)
      .join("\n\n");
    return { page, text };
  });
  return { ...doc, pages };
}

export function DocumentBody({ doc: content, target, pdfPageRenderer }: { doc: DocumentContent; target: ViewerTarget; pdfPageRenderer?: ComponentType<PdfPageProps> }) {
  const t = useT();
  const root = useRef<HTMLDivElement>(null);
  const pageRenderer = pdfPageRenderer ?? getPdfPageRenderer();
  const drawsOriginal = pageRenderer !== TextPdfPage;
  const doc = useMemo(() => withPdfPages(content, drawsOriginal), [content, drawsOriginal]);
  const located = useMemo(() => locateTarget(doc, target), [doc, target]);
  // On a phone a drawn PDF page is ~350 px wide: its text, highlight included, is too small to
  // read. The quoted passage is shown above the pages as text at reading size (issue 20 item 13).
  const phone = !useMediaQuery("(min-width: 640px)");
  const passage = phone && !!target.quote && located.kind === "page" && located.key != null && !!doc.pages?.length;

  useEffect(() => {
    const el = root.current;
    if (!el || located.key == null) return;
    const card = el.querySelector<HTMLElement>("[data-testid=viewer-passage]");
    if (card) return card.scrollIntoView({ block: "start" });
    const anchor = el.querySelector<HTMLElement>(`[data-anchor="${CSS.escape(String(located.key))}"]`);
    const mark = anchor?.querySelector<HTMLElement>("mark");
    const goal = mark ?? anchor;
    if (goal) scrollWithin(goal, mark ? "center" : "start");
  }, [located, target.nonce]);

  const missed = !!target.quote && located.range == null;
  if (doc.pages && doc.pages.length > 0) {
    return (
      <div ref={root} className="flex flex-col gap-4">
        {missed ? <p className="rounded-lg bg-amber-50 px-3 py-2 text-xs text-amber-900">{t("viewer.highlightMissing")}</p> : null}
        {passage ? (
          <figure data-testid="viewer-passage" className="rounded-xl border border-indigo-200 bg-white p-4 shadow-sm">
            <figcaption className="text-xs font-medium text-slate-600">{t("viewer.passageOnPage", { page: String(located.key) })}</figcaption>
            <blockquote className="mt-1.5 text-base leading-relaxed text-slate-900">
              <mark className="rounded bg-amber-100 px-0.5 text-slate-900">{plainQuote(target.quote ?? "")}</mark>
            </blockquote>
          </figure>
        ) : null}
        {doc.pages.map((p) => {
          // The document's page count, not the number of pages holding text (a page without
          // text has no entry): "page 8 of 24", never "8 of 3".
          const total = Math.max(doc.file.page_count ?? 0, doc.pages!.length, p.page);
          const isTarget = located.kind === "page" && located.key === p.page;
          return (
            <section
              key={p.page}
              data-anchor={p.page}
              data-testid="viewer-page"
              data-page={p.page}
              data-target={isTarget ? "true" : undefined}
              aria-label={t("viewer.pageOf", { page: p.page, total })}
              className={cx("rounded-xl border bg-white p-6 shadow-sm", isTarget ? "border-indigo-300 ring-2 ring-indigo-100" : "border-slate-200")}
            >
              <p className="mb-3 text-xs font-medium text-slate-500">{t("viewer.pageOf", { page: p.page, total })}</p>
              {p.text.trim() || drawsOriginal ? createElement(pageRenderer, { kbId: target.kbId, fileId: target.fileId, page: p.page, text: p.text, range: isTarget ? located.range : null, isTarget, nonce: target.nonce }) : <p className="text-sm text-slate-500">{t("viewer.noText")}</p>}
            </section>
          );
        })}
      </div>
    );
  }
  if (doc.chunks.length === 0) return <EmptyState icon={<FileIcon width={20} height={20} />} title={t("viewer.noText")} />;
  return (
    <div ref={root} className="flex flex-col gap-3">
      {missed ? <p className="rounded-lg bg-amber-50 px-3 py-2 text-xs text-amber-900">{t("viewer.highlightMissing")}</p> : null}
      <article className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
        {[...doc.chunks]
          .sort((a, b) => a.ordinal - b.ordinal)
          .map((c) => {
            const isTarget = located.kind === "chunk" && located.key === c.id;
            return (
              <section key={c.id} data-anchor={c.id} data-testid="viewer-chunk" data-target={isTarget ? "true" : undefined} className={cx("-mx-3 rounded-lg px-3 py-2", isTarget && "bg-indigo-50/60")}>
                {c.heading_path ? <p className="mb-1 text-xs font-semibold text-slate-500">{c.heading_path}</p> : null}
                <HighlightedText text={c.content} range={isTarget ? located.range : null} />
              </section>
            );
          })}
      </article>
    </div>
  );
}

/**
 * The download link checks the answer before the browser saves it: an original that vanished
 * from storage answers an error envelope (JSON) instead of the file, which the browser would
 * otherwise save or show as raw JSON. On the file's own content type the check is cut off and
 * the browser downloads the link as usual.
 */
function useCheckedDownload(kbId: string, fileId: string) {
  const errorCopy = useErrorCopy();
  const qc = useQueryClient();
  // Kept per file, so another file's viewer does not show it.
  const key = `${kbId}/${fileId}`;
  const [failure, setFailure] = useState<{ key: string; text: string } | null>(null);
  const setError = (text: string | null) => setFailure(text ? { key, text } : null);
  const onClick = async (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.currentTarget.dataset.checked === "1") return;
    e.preventDefault();
    const link = e.currentTarget;
    const controller = new AbortController();
    setError(null);
    try {
      const res = await fetch(link.href, { signal: controller.signal, credentials: "same-origin" });
      if (res.headers.get("content-type")?.startsWith("application/json")) {
        const body = (await res.json()) as { code?: string; msg?: string };
        const copy = errorCopy(String(body.code ?? "INTERNAL_ERROR"), body.msg ?? "");
        setError(copy.next ? `${copy.text} ${copy.next}` : copy.text);
        // The server marked the file failed: lists and status show it.
        void qc.invalidateQueries();
        return;
      }
      controller.abort();
    } catch (err) {
      if ((err as Error)?.name !== "AbortError") {
        setError(errorCopy("NETWORK_ERROR", "").text);
        return;
      }
    }
    link.dataset.checked = "1";
    link.click();
    delete link.dataset.checked;
  };
  return { error: failure?.key === key ? failure.text : null, onClick };
}

export function DocumentViewer() {
  const t = useT();
  const target = useViewerTarget();
  const close = useViewerStore((s) => s.close);
  const content = useDocumentContent(target?.kbId ?? null, target?.fileId ?? null);
  const download = useCheckedDownload(target?.kbId ?? "", target?.fileId ?? "");
  if (!target) {
    return <EmptyState testId="viewer-empty" icon={<FileIcon width={20} height={20} />} title={t("viewer.title")} hint={t("viewer.empty")} />;
  }
  const name = content.data?.file.name ?? target.fileName ?? "";
  return (
    <div data-testid="document-viewer" data-file-id={target.fileId} className="flex min-h-0 flex-1 flex-col">
      <div className="flex items-center gap-2 border-b border-slate-200 bg-white px-4 py-2.5">
        <FileIcon className="shrink-0 text-slate-500" />
        <h2 className="min-w-0 flex-1 truncate text-sm font-semibold text-slate-900" title={name}>
          {name}
        </h2>
        {target.page != null ? <span className="shrink-0 text-xs text-slate-500">{t("viewer.page", { page: target.page })}</span> : null}
        <a
          href={kbPath(target.kbId, `/files/${encodeURIComponent(target.fileId)}/original`)}
          download
          onClick={download.onClick}
          data-testid="viewer-download"
          className="inline-flex h-8 shrink-0 items-center gap-1.5 rounded-lg px-2.5 text-sm font-medium text-slate-600 hover:bg-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
        >
          <DownloadIcon />
          <span className="hidden sm:inline">{t("viewer.download")}</span>
          <span className="sr-only sm:hidden">{t("viewer.download")}</span>
        </a>
        <Button variant="ghost" size="icon" aria-label={t("viewer.close")} onClick={close}>
          <CloseIcon />
        </Button>
      </div>
      {download.error ? (
        <p role="alert" data-testid="viewer-download-error" className="border-b border-rose-200 bg-rose-50 px-4 py-2 text-sm text-rose-800">
          {download.error}
        </p>
      ) : null}
      <div tabIndex={0} role="region" aria-label={name || t("viewer.title")} className="min-h-0 flex-1 overflow-y-auto bg-slate-100/60 p-4 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-indigo-500 sm:p-6">
        {content.isPending ? (
          <p className="flex items-center gap-2 text-sm text-slate-500">
            <Spinner /> {t("viewer.loading")}
          </p>
        ) : content.isError ? (
          <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800">
            {t("common.loadFailed", { message: isApiError(content.error) ? content.error.message : String(content.error) })}
          </p>
        ) : (
          <DocumentBody doc={content.data} target={target} />
        )}
      </div>
    </div>
  );
}
