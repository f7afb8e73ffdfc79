import type { Block, BlockKind } from "../types";

/** Tracks the current heading path: a heading of level L replaces every open level ≥ L. */
export class HeadingStack {
  private stack: Array<{ level: number; text: string }> = [];
  push(level: number, text: string): string[] {
    while (this.stack.length && this.stack[this.stack.length - 1]!.level >= level) this.stack.pop();
    this.stack.push({ level, text });
    return this.path();
  }
  path(): string[] {
    return this.stack.map((h) => h.text);
  }
}

// NUL and other C0/C1 controls (PostgreSQL text cannot hold NUL; PDFs map unmapped glyphs to
// it), lone surrogates and U+FFFE/U+FFFF never belong in indexed text.
const INVALID = /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function stripInvalid(s: string): string {
  return s.replace(INVALID, "");
}

/** Collapses runs of spaces/tabs inside a line; keeps line breaks; trims. */
export function cleanText(s: string): string {
  return stripInvalid(s.replace(/\f/g, " "))
    .replace(/\r\n?/g, "\n")
    .replace(/[\u00a0\t\f\v ]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Heading text: one line, collapsed whitespace. */
export function cleanHeading(s: string): string {
  return stripInvalid(s).replace(/\s+/g, " ").trim();
}

export class BlockSink {
  readonly blocks: Block[] = [];
  readonly headings = new HeadingStack();
  heading(level: number, text: string, page: number | null = null): void {
    const t = cleanHeading(text);
    if (!t) return;
    const path = this.headings.push(level, t);
    this.blocks.push({ text: t, page, headingPath: path, kind: "heading", level });
  }
  add(kind: Exclude<BlockKind, "heading">, text: string, page: number | null = null, raw = false): void {
    const t = raw ? stripInvalid(text).replace(/\r\n?/g, "\n").replace(/^\n+|\s+$/g, "") : cleanText(text);
    if (!t.trim()) return;
    this.blocks.push({ text: t, page, headingPath: this.headings.path(), kind });
  }
}

/** Short, single-line, credential-free description of an unexpected parser error. */
export function describeError(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/\s+/g, " ").slice(0, 200);
}
