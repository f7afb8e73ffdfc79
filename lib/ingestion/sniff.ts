import "server-only";
import { open } from "node:fs/promises";
import yauzl from "yauzl";
import { AppError } from "@/lib/errors";
import { fileExtension } from "./file-name";

// Type detection by content (magic bytes) AND extension (SPEC §12). Both must agree; anything
// else is FILE_TYPE_UNSUPPORTED with a message that says what was found.

export type FileType = "pdf" | "docx" | "md" | "txt" | "html";

export const MIME_TYPES: Record<FileType, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  md: "text/markdown; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  html: "text/html; charset=utf-8",
};

const EXTENSIONS: Record<string, FileType> = {
  pdf: "pdf",
  docx: "docx",
  md: "md",
  markdown: "md",
  txt: "txt",
  text: "txt",
  html: "html",
  htm: "html",
};

export const SUPPORTED_TYPES_TEXT = "PDF, DOCX, Markdown (.md), plain text (.txt) or HTML (.html)";
/** How many leading bytes sniffing looks at (the upload keeps this many in memory). */
export const SNIFF_HEAD_BYTES = 8192;
/** A DOCX central directory with more entries than this is not looked through for sniffing. */
const SNIFF_MAX_ZIP_ENTRIES = 5000;

export interface SniffResult {
  fileType: FileType;
  mimeType: string;
}

type Magic =
  | { kind: "pdf" }
  | { kind: "zip" }
  | { kind: "binary"; what: string }
  | { kind: "text-candidate" };

const SIGNATURES: Array<[number[], string]> = [
  [[0x89, 0x50, 0x4e, 0x47], "a PNG image"],
  [[0xff, 0xd8, 0xff], "a JPEG image"],
  [[0x47, 0x49, 0x46, 0x38], "a GIF image"],
  [[0x52, 0x49, 0x46, 0x46], "a RIFF media file (WebP/WAV/AVI)"],
  [[0x42, 0x4d], "a BMP image"],
  [[0xd0, 0xcf, 0x11, 0xe0], "a legacy Office file (.doc/.xls/.ppt) or a password-protected Office document"],
  [[0x1f, 0x8b], "a gzip archive"],
  [[0x52, 0x61, 0x72, 0x21], "a RAR archive"],
  [[0x37, 0x7a, 0xbc, 0xaf], "a 7-Zip archive"],
  [[0x7f, 0x45, 0x4c, 0x46], "an executable (ELF)"],
  [[0x4d, 0x5a], "an executable (Windows)"],
  [[0x25, 0x21, 0x50, 0x53], "a PostScript file"],
  [[0x7b, 0x5c, 0x72, 0x74, 0x66], "an RTF document"],
  [[0xfe, 0xff], "UTF-16 text"],
  [[0xff, 0xfe], "UTF-16 text"],
];

function startsWith(head: Uint8Array, sig: number[], at = 0): boolean {
  if (head.length < at + sig.length) return false;
  return sig.every((b, i) => head[at + i] === b);
}

export function detectMagic(head: Uint8Array): Magic {
  // %PDF- may be preceded by a little junk (the PDF spec tolerates up to 1024 bytes).
  const pdfAt = indexOfAscii(head.subarray(0, 1024), "%PDF-");
  if (pdfAt >= 0) return { kind: "pdf" };
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) return { kind: "zip" };
  for (const [sig, what] of SIGNATURES) if (startsWith(head, sig)) return { kind: "binary", what };
  if (startsWith(head, [0x66, 0x74, 0x79, 0x70], 4)) return { kind: "binary", what: "an MP4/HEIC media file" };
  return { kind: "text-candidate" };
}

function indexOfAscii(buf: Uint8Array, s: string): number {
  outer: for (let i = 0; i + s.length <= buf.length; i++) {
    for (let j = 0; j < s.length; j++) if (buf[i + j] !== s.charCodeAt(j)) continue outer;
    return i;
  }
  return -1;
}

/** Incremental UTF-8 + "no NUL" validator (bounded memory: TextDecoder keeps ≤3 bytes). */
export class TextValidator {
  private decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  private ok = true;
  private reason = "";
  push(chunk: Uint8Array): void {
    if (!this.ok) return;
    if (chunk.indexOf(0) !== -1) {
      this.ok = false;
      this.reason = "contains NUL bytes (binary data)";
      return;
    }
    try {
      this.decoder.decode(chunk, { stream: true });
    } catch {
      this.ok = false;
      this.reason = "is not valid UTF-8 text";
    }
  }
  /** False as soon as a violation was seen (does not flush the decoder). */
  get stillOk(): boolean {
    return this.ok;
  }
  finish(): { ok: boolean; reason: string } {
    if (this.ok) {
      try {
        this.decoder.decode();
      } catch {
        this.ok = false;
        this.reason = "is not valid UTF-8 text (truncated character at the end)";
      }
    }
    return { ok: this.ok, reason: this.reason };
  }
}

function looksLikeHtml(head: Uint8Array): boolean {
  const s = new TextDecoder("utf-8").decode(head.subarray(0, 2048)).replace(/^\ufeff/, "").trimStart().toLowerCase();
  return s.startsWith("<!doctype html") || s.startsWith("<html") || /^<head[\s>]/.test(s) || /^<body[\s>]/.test(s);
}

type ZipSource = { path: string } | { buffer: Buffer };

/** Looks for word/document.xml in the zip's central directory (bounded entry count). */
export function zipHasDocxMainPart(src: ZipSource): Promise<{ ok: boolean; reason?: string }> {
  return new Promise((resolve) => {
    const onZip = (err: Error | null, zip?: yauzl.ZipFile) => {
      if (err || !zip) return resolve({ ok: false, reason: `is a damaged zip archive (${err?.message ?? "unreadable"})` });
      if (zip.entryCount > SNIFF_MAX_ZIP_ENTRIES) {
        zip.close();
        return resolve({ ok: false, reason: `is a zip archive with ${zip.entryCount} entries, too many for a Word document` });
      }
      let found = false;
      let done = false;
      const finish = (r: { ok: boolean; reason?: string }) => {
        if (done) return;
        done = true;
        try {
          zip.close();
        } catch {
          /* already closed */
        }
        resolve(r);
      };
      zip.on("entry", (e: yauzl.Entry) => {
        if (e.fileName === "word/document.xml") {
          found = true;
          return finish({ ok: true });
        }
        zip.readEntry();
      });
      zip.on("end", () => finish(found ? { ok: true } : { ok: false, reason: "is a zip archive without word/document.xml (not a Word .docx document)" }));
      zip.on("error", (e: Error) => finish({ ok: false, reason: `is a damaged zip archive (${e.message})` }));
      zip.readEntry();
    };
    const opts = { lazyEntries: true, autoClose: true, strictFileNames: false, validateEntrySizes: true };
    if ("path" in src) yauzl.open(src.path, opts, onZip);
    else yauzl.fromBuffer(src.buffer, opts, onZip);
  });
}

function unsupported(name: string, message: string): AppError {
  return new AppError("FILE_TYPE_UNSUPPORTED", message, { name });
}

export interface SniffInput {
  /** Display name (only its extension is used). */
  name: string;
  size: number;
  /** The first bytes of the content (SNIFF_HEAD_BYTES or all of it). */
  head: Uint8Array;
  /** Result of TextValidator over the whole content. */
  text: { ok: boolean; reason: string };
  /** Where the complete content is, for the DOCX central-directory check. */
  source: ZipSource;
}

/** Decides the file type or throws AppError FILE_TYPE_UNSUPPORTED. */
export async function sniffFileType(input: SniffInput): Promise<SniffResult> {
  const { name, size, head, text, source } = input;
  const ext = fileExtension(name);
  const byExt = EXTENSIONS[ext];
  const shownExt = ext ? `.${ext}` : "no extension";
  if (size === 0) throw unsupported(name, "The file is empty (0 bytes); there is nothing to index.");
  if (!byExt) {
    throw unsupported(name, `Files with ${shownExt === "no extension" ? "no extension" : `the extension ${shownExt}`} are not supported. Upload ${SUPPORTED_TYPES_TEXT}.`);
  }
  const magic = detectMagic(head);
  const result = (t: FileType): SniffResult => ({ fileType: t, mimeType: MIME_TYPES[t] });

  if (byExt === "pdf") {
    if (magic.kind === "pdf") return result("pdf");
    throw unsupported(name, `The file is named ${shownExt} but its content is ${describe(magic, text)}, not a PDF.`);
  }
  if (byExt === "docx") {
    if (magic.kind !== "zip") throw unsupported(name, `The file is named .docx but its content is ${describe(magic, text)}, not a Word document.`);
    const z = await zipHasDocxMainPart(source);
    if (!z.ok) throw unsupported(name, `The file is named .docx but ${z.reason}.`);
    return result("docx");
  }
  // Text family: md, txt, html.
  if (magic.kind !== "text-candidate") {
    throw unsupported(name, `The file is named ${shownExt} but its content is ${describe(magic, text)}, not text.`);
  }
  if (!text.ok) {
    throw unsupported(name, `The file is named ${shownExt} but it ${text.reason}. Save it as UTF-8 text and upload it again.`);
  }
  if (byExt === "txt" && looksLikeHtml(head)) return result("html");
  return result(byExt);
}

function describe(magic: Magic, text: { ok: boolean }): string {
  switch (magic.kind) {
    case "pdf":
      return "a PDF";
    case "zip":
      return "a zip archive";
    case "binary":
      return magic.what;
    default:
      return text.ok ? "plain text" : "unrecognized binary data";
  }
}

/** Convenience for tests and scripts: sniff an in-memory file. */
export function sniffBuffer(name: string, buf: Buffer): Promise<SniffResult> {
  const v = new TextValidator();
  v.push(buf);
  return sniffFileType({
    name,
    size: buf.length,
    head: buf.subarray(0, SNIFF_HEAD_BYTES),
    text: v.finish(),
    source: { buffer: buf },
  });
}

/** Sniff a file on disk (streams it once for the text check; bounded memory). */
export async function sniffPath(name: string, filePath: string): Promise<SniffResult> {
  const fh = await open(filePath, "r");
  try {
    const { size } = await fh.stat();
    const v = new TextValidator();
    let head: Uint8Array = new Uint8Array(0);
    const buf = Buffer.alloc(64 * 1024);
    let pos = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      if (pos === 0) head = Buffer.from(chunk.subarray(0, SNIFF_HEAD_BYTES));
      v.push(chunk);
      pos += bytesRead;
      // Binary content is decided by the head; no need to read further once text failed.
      if (!v.stillOk && pos >= SNIFF_HEAD_BYTES) break;
    }
    return await sniffFileType({ name, size, head, text: v.finish(), source: { path: filePath } });
  } finally {
    await fh.close();
  }
}
