"use client";
// Seam for the PDF page renderer. The default shows a page as its extracted text (from GET
// …/content, which keeps page numbers); providers.tsx registers the pdf.js renderer
// (pdfjs-page.tsx), which draws the page from GET …/original onto a canvas with a text layer,
// highlights the quote there, and falls back to this text rendering when pdf.js fails.
// The viewer (page list, scrolling, quote matching) stays unchanged.
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
  /** This is the cited page (drawn first, scrolled to), even when the quote was not found. */
  isTarget?: boolean;
  /** Changes on every open of a reference, so the same page scrolls to its quote again. */
  nonce?: number;
}

/** Text with one highlighted range, rendered as text (never HTML). Shared by every text view. */
export function HighlightedText({ text, range }: { text: string; range: TextRange | null }) {
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

export function TextPdfPage({ text, range }: PdfPageProps) {
  return <HighlightedText text={text} range={range} />;
}

let renderer: ComponentType<PdfPageProps> = TextPdfPage;

export function registerPdfPageRenderer(c: ComponentType<PdfPageProps>): void {
  renderer = c;
}

export function getPdfPageRenderer(): ComponentType<PdfPageProps> {
  return renderer;
}
