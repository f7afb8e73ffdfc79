"use client";
// Seam for pdf.js. pdf.js is not installed yet, so a PDF page is shown as its extracted text
// (from GET …/content, which keeps page numbers). When pdf.js lands, register a renderer that
// draws the page from GET …/original onto a canvas with a text layer, and highlight `range`
// in that text layer; the viewer (page list, scrolling, quote matching) stays unchanged.
import type { ComponentType } from "react";
import { splitByRange, type TextRange } from "./quote-highlight";

export interface PdfPageProps {
  kbId: string;
  fileId: string;
  page: number;
  /** Extracted text of the page (sanitized by the server); always rendered as text. */
  text: string;
  /** The quote's position within `text`, or null when nothing is highlighted. */
  range: TextRange | null;
}

export function TextPdfPage({ text, range }: PdfPageProps) {
  return (
    <p className="whitespace-pre-wrap break-words text-sm leading-7 text-slate-800">
      {splitByRange(text, range).map((s, i) =>
        s.mark ? (
          <mark key={i} data-testid="viewer-highlight" className="rounded bg-amber-200 px-0.5 text-slate-900">
            {s.text}
          </mark>
        ) : (
          <span key={i}>{s.text}</span>
        ),
      )}
    </p>
  );
}

let renderer: ComponentType<PdfPageProps> = TextPdfPage;

export function registerPdfPageRenderer(c: ComponentType<PdfPageProps>): void {
  renderer = c;
}

export function getPdfPageRenderer(): ComponentType<PdfPageProps> {
  return renderer;
}
