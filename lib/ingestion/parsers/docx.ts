import mammoth from "mammoth";
import yauzl from "yauzl";
import { IngestionFailure, type ParseBudget, type ParsedDocument } from "../types";
import { describeError } from "./common";
import { parseHtmlString } from "./html";
import { textTooLarge } from "./text-limits";

// DOCX: the zip is inspected with yauzl BEFORE mammoth touches it (SPEC §12 "archive limits
// checked before decompressing"): entry count, total declared uncompressed size and per-entry
// compression ratio from the central directory; then every part mammoth will read is actually
// inflated as a stream, counting bytes, so a bomb whose declared sizes lie is stopped after at
// most the byte budget, with bounded memory. Only then does mammoth convert it to HTML
// (headings, lists, tables), and the HTML parser turns that into blocks.

export const DOCX_LIMITS = {
  maxEntries: 5000,
  /** Sum of the declared uncompressed sizes of all entries (media included). */
  maxDeclaredBytes: 512 * 1024 * 1024,
  /** Actual inflated bytes of the parts mammoth reads (XML), all together. */
  maxInflatedBytes: 64 * 1024 * 1024,
  /** Declared compression ratio allowed for entries larger than ratioMinBytes. */
  maxRatio: 100,
  ratioMinBytes: 1024 * 1024,
};

type Limits = typeof DOCX_LIMITS;

const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;

function bomb(reason: string): IngestionFailure {
  return new IngestionFailure(
    "FILE_TOO_LARGE",
    `The DOCX was rejected as a possible zip bomb: ${reason}. If it is a real document, save it again from Word and upload the new copy.`,
  );
}

function damaged(e: unknown): IngestionFailure {
  return new IngestionFailure("FILE_TYPE_UNSUPPORTED", `The DOCX is damaged and cannot be read (${describeError(e)}).`);
}

/** Parts mammoth does not read (we do not render images); everything else is inflated and counted. */
function isSkippedPart(name: string): boolean {
  return /^word\/(media|embeddings)\//i.test(name) || /^customXml\//i.test(name) || /\.(png|jpe?g|gif|bmp|emf|wmf|tiff?|svg|bin|xlsx|ole)$/i.test(name);
}

type Source = { path: string } | { buffer: Buffer };

function openZip(src: Source): Promise<yauzl.ZipFile> {
  const opts = { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true };
  return new Promise((resolve, reject) => {
    const cb = (err: Error | null, zip?: yauzl.ZipFile) => (err || !zip ? reject(damaged(err)) : resolve(zip));
    if ("path" in src) yauzl.open(src.path, opts, cb);
    else yauzl.fromBuffer(src.buffer, opts, cb);
  });
}

/** Parts whose `<w:t>` text mammoth turns into the document's text. */
function isTextPart(name: string): boolean {
  return /^word\/(document|footnotes|endnotes|comments)\.xml$/i.test(name);
}

/**
 * Counts the characters of text in WordprocessingML as it streams by, without building it:
 * code points inside `<w:t …>…</w:t>`, an entity (`&amp;`) as one. The extracted-text limit is
 * then checked while the XML inflates, before mammoth builds its document tree (which for 60 MB
 * of XML needs more than 1 GB of heap, issue 16 item 2), so a file with too much text is refused
 * for that reason, in about a second, instead of running the parser out of memory.
 */
export class WordTextCounter {
  chars = 0;
  private inTag = false;
  private inText = false;
  private inEntity = false;
  /** The tag's first bytes (enough to tell `w:t` from `w:tab`, `w:tbl`…). */
  private tag = "";
  /** The tag's last byte before `>`: `/` for an empty element such as `<w:t xml:space="preserve"/>`,
   *  whose attributes can push the `/` beyond the bytes kept in `tag`. */
  private last = 0;

  push(chunk: Buffer): void {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (this.inTag) {
        if (c === 0x3e /* > */) {
          this.inTag = false;
          const t = this.tag;
          if (t === "/w:t") this.inText = false;
          else if ((t === "w:t" || t.startsWith("w:t ") || t.startsWith("w:t/")) && this.last !== 0x2f /* / */) this.inText = true;
        } else {
          if (this.tag.length < 8) this.tag += String.fromCharCode(c);
          this.last = c;
        }
      } else if (c === 0x3c /* < */) {
        this.inTag = true;
        this.inEntity = false;
        this.tag = "";
        this.last = 0;
      } else if (this.inText) {
        if (this.inEntity) {
          if (c === 0x3b /* ; */) this.inEntity = false;
        } else if (c === 0x26 /* & */) {
          this.inEntity = true;
          this.chars++;
        } else if ((c & 0xc0) !== 0x80) this.chars++;
      }
    }
  }
}

function inflateCounting(zip: yauzl.ZipFile, entry: yauzl.Entry, budgetLeft: number, totalLimit: number, budget: ParseBudget, text: WordTextCounter): Promise<number> {
  const counting = isTextPart(entry.fileName);
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err || !stream) return reject(damaged(err));
      let n = 0;
      stream.on("data", (chunk: Buffer) => {
        n += chunk.length;
        if (n > budgetLeft) {
          stream.destroy();
          return reject(bomb(`its parts inflate to more than ${mb(totalLimit)} of XML (stopped at "${entry.fileName.slice(0, 80)}")`));
        }
        if (counting) {
          text.push(chunk);
          if (text.chars > budget.limits.maxTextChars) {
            stream.destroy();
            return reject(textTooLarge(budget.limits.maxTextChars));
          }
        }
        try {
          budget.check();
        } catch (e) {
          stream.destroy();
          reject(e);
        }
      });
      stream.on("error", (e: Error) => {
        // yauzl's validateEntrySizes: more (or fewer) bytes than the central directory declares.
        if (/too many bytes|not enough bytes|expected/i.test(e.message)) reject(bomb(`"${entry.fileName.slice(0, 80)}" does not match its declared size`));
        else reject(damaged(e));
      });
      stream.on("end", () => resolve(n));
    });
  });
}

/** Checks the archive; throws IngestionFailure for a bomb or damaged zip. Returns stats. */
export async function inspectDocxArchive(src: Source, budget: ParseBudget, limits: Limits = DOCX_LIMITS) {
  const zip = await openZip(src);
  try {
    if (zip.entryCount > limits.maxEntries) {
      throw bomb(`it has ${zip.entryCount.toLocaleString("en-US")} entries (limit ${limits.maxEntries.toLocaleString("en-US")})`);
    }
    // Pass 1: the central directory only (no decompression).
    const entries: yauzl.Entry[] = [];
    let declared = 0;
    await new Promise<void>((resolve, reject) => {
      zip.on("entry", (e: yauzl.Entry) => {
        declared += e.uncompressedSize;
        if (declared > limits.maxDeclaredBytes) return reject(bomb(`its entries declare ${mb(declared)}+ uncompressed (limit ${mb(limits.maxDeclaredBytes)})`));
        if (e.uncompressedSize > limits.ratioMinBytes && e.uncompressedSize / Math.max(1, e.compressedSize) > limits.maxRatio) {
          return reject(bomb(`"${e.fileName.slice(0, 80)}" declares a compression ratio of ${Math.round(e.uncompressedSize / Math.max(1, e.compressedSize))}:1 (limit ${limits.maxRatio}:1)`));
        }
        if (!isSkippedPart(e.fileName) && !e.fileName.endsWith("/")) entries.push(e);
        if (entries.length > limits.maxEntries) return reject(bomb("too many entries"));
        zip.readEntry();
      });
      zip.on("end", () => resolve());
      zip.on("error", (e: Error) => reject(damaged(e)));
      zip.readEntry();
    });
    if (!entries.some((e) => e.fileName === "word/document.xml")) {
      throw new IngestionFailure("FILE_TYPE_UNSUPPORTED", "The DOCX has no word/document.xml part; it is not a Word document.");
    }
    // Pass 2: actually inflate what mammoth will read, counting (declared sizes may lie).
    // The text limit is checked on the way (WordTextCounter).
    let inflated = 0;
    const text = new WordTextCounter();
    for (const e of entries) {
      budget.check();
      inflated += await inflateCounting(zip, e, limits.maxInflatedBytes - inflated, limits.maxInflatedBytes, budget, text);
    }
    return { entryCount: zip.entryCount, declaredBytes: declared, inflatedBytes: inflated, textChars: text.chars };
  } finally {
    zip.close();
  }
}

export async function parseDocx(src: Source, budget: ParseBudget, limits: Limits = DOCX_LIMITS): Promise<ParsedDocument> {
  await inspectDocxArchive(src, budget, limits);
  budget.check();
  let html: string;
  try {
    const result = await mammoth.convertToHtml(src, {
      // Images are not indexed: do not read (or inflate) them at all.
      convertImage: mammoth.images.imgElement(async () => ({ src: "" })),
      externalFileAccess: false,
      ignoreEmptyParagraphs: true,
      styleMap: ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => h2:fresh"],
    });
    html = result.value;
  } catch (e) {
    if (e instanceof IngestionFailure) throw e;
    throw damaged(e);
  }
  budget.check();
  return parseHtmlString(html, budget);
}
