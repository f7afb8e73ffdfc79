"use client";
// The pdf.js page renderer registered on the seam (pdf-page-seam.tsx). pdf.js itself is loaded
// lazily (pdfjs-runtime.ts, via import()) the first time a PDF page is shown. The cited page is
// drawn first and its quote highlighted in the text layer; other pages get a placeholder of the
// right size and are drawn when they scroll near the viewport. Until pdf.js has the document,
// and for good if it fails to load or draw, the page shows its extracted text (TextPdfPage).
import { useEffect, useRef, useState } from "react";
import type { PDFDocumentProxy } from "pdfjs-dist";
import { TextPdfPage, type PdfPageProps } from "./pdf-page-seam";
import { scrollWithin } from "@/components/ui/scroll-within";
import type { DrawnPage } from "./pdfjs-runtime";
import "./pdfjs-page.css";

type Runtime = typeof import("./pdfjs-runtime");
let runtimePromise: Promise<Runtime> | null = null;
function loadRuntime(): Promise<Runtime> {
  runtimePromise ??= import("./pdfjs-runtime").catch((e) => {
    runtimePromise = null;
    throw e;
  });
  return runtimePromise;
}

type Phase = "loading" | "sized" | "drawn" | "failed";

export function PdfJsPage(props: PdfPageProps) {
  const { kbId, fileId, page, text, range, isTarget = false, nonce } = props;
  const host = useRef<HTMLDivElement>(null);
  const [loaded, setLoaded] = useState<{ runtime: Runtime; doc: PDFDocumentProxy } | null>(null);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  const [phase, setPhase] = useState<Phase>("loading");
  const [near, setNear] = useState(false);
  const [drawn, setDrawn] = useState<DrawnPage | null>(null);

  // 1. The shared document of this file (fetched once per open file), then this page's size.
  useEffect(() => {
    let live = true;
    let acquired: Runtime | null = null;
    loadRuntime()
      .then(async (runtime) => {
        if (!live) return;
        acquired = runtime;
        const doc = await runtime.acquireDocument(kbId, fileId);
        const s = await runtime.pageSize(doc, page);
        if (!live) return;
        setLoaded({ runtime, doc });
        setSize(s);
        setPhase((p) => (p === "loading" ? "sized" : p));
      })
      .catch((e: unknown) => {
        if (!live) return;
        console.warn(`[viewer] pdf.js could not load page ${page}; showing extracted text`, e);
        setPhase("failed");
      });
    return () => {
      live = false;
      acquired?.releaseDocument(kbId, fileId);
    };
  }, [kbId, fileId, page]);

  // 2. Keep the text layer's scale in step with the page's width (the canvas scales by CSS).
  useEffect(() => {
    const el = host.current;
    if (!el || !size) return;
    const update = () => el.style.setProperty("--total-scale-factor", String((el.clientWidth || size.width) / size.width));
    update();
    const ro = new ResizeObserver(update);
    ro.observe(el);
    return () => ro.disconnect();
  }, [size]);

  // 3. Lazy drawing: the cited page at once, the others when they come near the viewport.
  useEffect(() => {
    const el = host.current;
    if (!el || !size || isTarget || near) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setNear(true), { rootMargin: "600px 0px" });
    io.observe(el);
    return () => io.disconnect();
  }, [size, isTarget, near]);

  const wanted = isTarget || near;
  useEffect(() => {
    const el = host.current;
    if (!el || !loaded || !size || !wanted || drawn) return;
    const ac = new AbortController();
    loaded.runtime
      .drawPage(loaded.doc, page, el, ac.signal)
      .then((d) => {
        if (ac.signal.aborted) return;
        setDrawn(d);
        setPhase("drawn");
      })
      .catch((e: unknown) => {
        if (ac.signal.aborted) return;
        console.warn(`[viewer] pdf.js could not draw page ${page}; showing extracted text`, e);
        setPhase("failed");
      });
    return () => ac.abort();
  }, [loaded, size, wanted, drawn, page]);

  // 4. Highlight the quote in the text layer and bring it into view (again on every open).
  const needle = isTarget && range ? text.slice(range.start, range.end) : "";
  useEffect(() => {
    if (!drawn || !loaded) return;
    const marks = loaded.runtime.highlightQuote(drawn, needle);
    if (!isTarget) return;
    const goal = marks[0] ?? host.current?.closest<HTMLElement>("[data-anchor]");
    if (goal) scrollWithin(goal, marks[0] ? "center" : "start");
  }, [drawn, loaded, needle, isTarget, nonce]);

  const showText = phase === "loading" || phase === "failed";
  return (
    <div data-testid="pdf-page-view" data-renderer={phase === "drawn" ? "pdfjs" : "text"} data-phase={phase}>
      {showText ? <TextPdfPage {...props} /> : null}
      <div
        ref={host}
        data-testid="pdf-page-surface"
        hidden={showText}
        className="pdf-page-surface"
        style={size ? { aspectRatio: `${size.width} / ${size.height}` } : undefined}
      />
    </div>
  );
}
