import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildZip, DOCX_CONTENT_TYPES, DOCX_RELS, zipDeflated } from "../../../support/docx-zip";

// The two hostile uploads of issue 16, item 2, and the plain-prose Markdown other ingestion tests
// use. The DOCX: a real Word document (paragraphs, formatted runs, a heading every
// 20 paragraphs) whose zip passes every archive limit of lib/ingestion/parsers/docx.ts (three
// entries, a declared ratio near 3:1, under 64 MB of XML) and holds ~60 MB of document XML in an
// ~18 MB file. The attack run's file of this shape blocked the main thread ~20 s and the
// database 445 s. Zipped by e2e/support/docx-zip.ts, as scripts/make-fixtures.ts zips the
// zip-bomb fixtures (jszip, which mammoth uses, needs seconds more for 60 MB); generated once per
// directory and cached there.

export interface HostileDocxOptions {
  /** Bytes of word/document.xml to produce (default 60 MB, just under the 64 MB archive limit). */
  xmlBytes?: number;
  seed?: number;
}

function rng(seed: number) {
  return () => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff);
}

/**
 * A vocabulary of made-up words: random letters make the text compress about as badly as real
 * prose of many authors (~3:1 together with the markup), which is what lets 60 MB of XML fit in
 * an 18 MB upload.
 */
function vocabulary(rnd: () => number, n: number): string[] {
  const letters = "etaoinshrdlcumwfgypbvkjxqz";
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const len = 3 + Math.floor(rnd() * 8);
    let w = "";
    // Skewed towards frequent letters, as in English.
    for (let k = 0; k < len; k++) w += letters[Math.floor(rnd() * rnd() * letters.length)];
    out.push(w);
  }
  return out;
}

const HEAD =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
const TAIL = '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>';

/** word/document.xml: ~xmlBytes of paragraphs of a few formatted runs, a Heading2 every 20. */
export function hostileDocumentXml(opts: HostileDocxOptions = {}): Buffer {
  const target = opts.xmlBytes ?? 60 * 1024 * 1024;
  const rnd = rng(opts.seed ?? 16);
  const words = vocabulary(rnd, 20_000);
  const parts: string[] = [HEAD];
  let size = HEAD.length + TAIL.length;
  const word = () => words[Math.floor(rnd() * words.length)]!;
  for (let p = 0; size < target; p++) {
    let xml: string;
    if (p % 20 === 0) {
      xml = `<w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Section ${p / 20 + 1} ${word()} ${word()}</w:t></w:r></w:p>`;
    } else {
      const runs: string[] = [];
      const nRuns = 2 + Math.floor(rnd() * 4);
      for (let r = 0; r < nRuns; r++) {
        const text = Array.from({ length: 4 + Math.floor(rnd() * 10) }, word).join(" ");
        const style = r % 3 === 1 ? "<w:rPr><w:b/></w:rPr>" : r % 3 === 2 ? '<w:rPr><w:i/><w:sz w:val="22"/></w:rPr>' : "";
        runs.push(`<w:r>${style}<w:t xml:space="preserve">${text}${r < nRuns - 1 ? " " : "."}</w:t></w:r>`);
      }
      xml = `<w:p>${runs.join("")}</w:p>`;
    }
    parts.push(xml);
    size += xml.length;
  }
  parts.push(TAIL);
  return Buffer.from(parts.join(""), "latin1");
}

export function hostileDocx(opts: HostileDocxOptions = {}): Buffer {
  // Level 6, zlib's default, as Word and LibreOffice write: level 9 takes seconds longer at 60 MB.
  return buildZip([
    zipDeflated("[Content_Types].xml", Buffer.from(DOCX_CONTENT_TYPES), 6),
    zipDeflated("_rels/.rels", Buffer.from(DOCX_RELS), 6),
    zipDeflated("word/document.xml", hostileDocumentXml(opts), 6),
  ]);
}

/** The DOCX, generated once into `dir` and read from there afterwards. */
export function cachedHostileDocx(dir: string, opts: HostileDocxOptions = {}): string {
  const file = path.join(dir, `hostile-${opts.xmlBytes ?? "60mb"}-${opts.seed ?? 16}.docx`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${file}.part`, hostileDocx(opts));
    renameSync(`${file}.part`, file);
  }
  return file;
}

/** Plain prose Markdown of the issue: random words, `## Section` every 20 lines. */
export function hostileMarkdown(bytes: number, seed = 45): Buffer {
  const rnd = rng(seed);
  const words = vocabulary(rnd, 20_000);
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = i % 20 === 0 ? `## Section ${i / 20 + 1}` : Array.from({ length: 12 }, () => words[Math.floor(rnd() * words.length)]!).join(" ") + ".";
    lines.push(line);
    size += line.length + 1;
  }
  return Buffer.from(lines.join("\n"));
}

export function cachedHostileMarkdown(dir: string, bytes = 45 * 1024 * 1024): string {
  const file = path.join(dir, `hostile-${bytes}.md`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${file}.part`, hostileMarkdown(bytes));
    renameSync(`${file}.part`, file);
  }
  return file;
}

/**
 * Plain prose over a 13-word vocabulary with a `## Section` heading every 20 lines: the attack
 * run's shape at any size, cheap to index (few distinct terms), for tests of limits and batching.
 */
export function repetitiveProseMarkdown(bytes: number): Buffer {
  const words = "alpha beta gamma delta server index query budget limit page table chunk answer".split(" ");
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = i % 20 === 0 ? `## Section ${i / 20}` : Array.from({ length: 12 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(" ") + ".";
    lines.push(line);
    size += line.length + 1;
  }
  return Buffer.from(lines.join("\n"));
}
