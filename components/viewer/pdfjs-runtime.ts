// pdf.js in the browser. Only ever loaded through `import()` from pdfjs-page.tsx, so pdf.js is a
// separate chunk fetched when a PDF is first opened, never part of the first load and never run
// on the server. The PDF is untrusted: no eval, no scripting, no annotation layer (so no links
// that navigate), and every asset (worker, CMaps, fonts) comes from this origin (public/pdfjs/,
// copied by scripts/copy-pdfjs-assets.mjs).
import { AnnotationMode, GlobalWorkerOptions, TextLayer, getDocument, version, type PDFDocumentProxy } from "pdfjs-dist";
import { kbPath } from "@/components/api/http-client";
import { findQuoteRange } from "./quote-highlight";

const ASSETS = `/pdfjs/${version}/`;
GlobalWorkerOptions.workerSrc = `${ASSETS}pdf.worker.min.mjs`;

/** Keep a closed document around briefly so reopening or a remount does not fetch it again. */
const RELEASE_GRACE_MS = 10_000;

interface Entry {
  promise: Promise<PDFDocumentProxy>;
  refs: number;
  timer: ReturnType<typeof setTimeout> | null;
}

const documents = new Map<string, Entry>();

async function loadDocument(kbId: string, fileId: string): Promise<PDFDocumentProxy> {
  // The original is an attachment (application/octet-stream): fetched as bytes, never navigated to.
  const res = await fetch(kbPath(kbId, `/files/${encodeURIComponent(fileId)}/original`), { credentials: "same-origin", cache: "no-store" });
  if (!res.ok) throw new Error(`original: HTTP ${res.status}`);
  // Business errors come back as a JSON envelope with HTTP 200; only bytes are a document.
  if ((res.headers.get("content-type") ?? "").includes("json")) throw new Error("original: not a file");
  const data = await res.arrayBuffer();
  return getDocument({
    data,
    cMapUrl: `${ASSETS}cmaps/`,
    cMapPacked: true,
    standardFontDataUrl: `${ASSETS}standard_fonts/`,
    isEvalSupported: false,
    enableXfa: false,
  }).promise;
}

/**
 * The document of one file, fetched once and shared by every page of the open viewer. Each
 * caller holds a reference until `releaseDocument`; the last release destroys it after a grace.
 */
export function acquireDocument(kbId: string, fileId: string): Promise<PDFDocumentProxy> {
  const key = `${kbId}/${fileId}`;
  let entry = documents.get(key);
  if (!entry) {
    entry = { promise: loadDocument(kbId, fileId), refs: 0, timer: null };
    entry.promise.catch(() => undefined);
    documents.set(key, entry);
  }
  if (entry.timer) clearTimeout(entry.timer);
  entry.timer = null;
  entry.refs++;
  return entry.promise;
}

export function releaseDocument(kbId: string, fileId: string): void {
  const key = `${kbId}/${fileId}`;
  const entry = documents.get(key);
  if (!entry || --entry.refs > 0) return;
  entry.timer = setTimeout(() => {
    if (documents.get(key) !== entry) return;
    documents.delete(key);
    entry.promise.then((d) => d.destroy(), () => undefined);
  }, RELEASE_GRACE_MS);
}

/** Size of a page in PDF units at scale 1 (rotation applied), for placeholders and scaling. */
export async function pageSize(doc: PDFDocumentProxy, pageNumber: number): Promise<{ width: number; height: number }> {
  const page = await doc.getPage(pageNumber);
  const { pageWidth, pageHeight } = page.getViewport({ scale: 1 }).rawDims as { pageWidth: number; pageHeight: number };
  return page.rotate % 180 === 0 ? { width: pageWidth, height: pageHeight } : { width: pageHeight, height: pageWidth };
}

export interface DrawnPage {
  textDivs: HTMLElement[];
  itemsStr: string[];
}

/**
 * Draws one page into `host`: a canvas at devicePixelRatio fitted to the host's width, and the
 * pdf.js text layer over it. The host's `--total-scale-factor` (set by the caller) sizes the text layer.
 */
export async function drawPage(doc: PDFDocumentProxy, pageNumber: number, host: HTMLElement, signal: AbortSignal): Promise<DrawnPage> {
  const page = await doc.getPage(pageNumber);
  if (signal.aborted) throw signal.reason;
  const unscaled = page.getViewport({ scale: 1 });
  const cssWidth = host.clientWidth || unscaled.width;
  const viewport = page.getViewport({ scale: cssWidth / unscaled.width });
  const dpr = Math.min(window.devicePixelRatio || 1, 3);

  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, Math.floor(viewport.width * dpr));
  canvas.height = Math.max(1, Math.floor(viewport.height * dpr));
  canvas.className = "pdf-canvas";
  canvas.setAttribute("aria-hidden", "true");
  canvas.dataset.testid = "pdf-canvas";
  const layer = document.createElement("div");
  layer.className = "textLayer";
  layer.dataset.testid = "pdf-text-layer";

  const renderTask = page.render({
    canvas,
    viewport,
    transform: dpr !== 1 ? [dpr, 0, 0, dpr, 0, 0] : undefined,
    // Annotation appearances are painted on the canvas; no annotation layer, so nothing clickable.
    annotationMode: AnnotationMode.ENABLE,
  });
  const textLayer = new TextLayer({ textContentSource: page.streamTextContent(), container: layer, viewport });
  const onAbort = () => {
    renderTask.cancel();
    textLayer.cancel();
  };
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    await Promise.all([renderTask.promise, textLayer.render()]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  host.replaceChildren(canvas, layer);
  return { textDivs: textLayer.textDivs, itemsStr: textLayer.textContentItemsStr };
}

const MARK_CLASS = "pdf-highlight";

/** Removes highlights added by `highlightQuote`, restoring each span's plain text. */
export function clearHighlights(drawn: DrawnPage): void {
  drawn.textDivs.forEach((div, i) => {
    if (div.querySelector(`mark.${MARK_CLASS}`)) div.textContent = drawn.itemsStr[i] ?? "";
  });
}

/**
 * Finds `needle` across the text layer (whitespace-insensitive, as in the text viewer; a quote
 * may span many text items) and wraps the matching characters of each span in a <mark>. The
 * span keeps its exact text, so pdf.js's measured scaling still lines it up with the canvas.
 */
export function highlightQuote(drawn: DrawnPage, needle: string): HTMLElement[] {
  clearHighlights(drawn);
  const offsets: number[] = [];
  let all = "";
  for (const s of drawn.itemsStr) {
    offsets.push(all.length);
    all += s;
  }
  const range = needle ? findQuoteRange(all, needle) : null;
  if (!range) return [];
  const marks: HTMLElement[] = [];
  drawn.itemsStr.forEach((s, i) => {
    const from = Math.max(range.start, offsets[i]!) - offsets[i]!;
    const to = Math.min(range.end, offsets[i]! + s.length) - offsets[i]!;
    const div = drawn.textDivs[i];
    if (!div || to <= from || !s.slice(from, to).trim()) return;
    const mark = document.createElement("mark");
    mark.className = MARK_CLASS;
    mark.dataset.testid = "viewer-highlight";
    mark.textContent = s.slice(from, to);
    div.replaceChildren(s.slice(0, from), mark, s.slice(to));
    marks.push(mark);
  });
  return marks;
}
