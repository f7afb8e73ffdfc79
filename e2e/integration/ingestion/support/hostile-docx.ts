import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { crc32, deflateRawSync } from "node:zlib";

// The DOCX of issue 16, item 2: a real Word document (paragraphs, formatted runs, a heading every
// 20 paragraphs) whose zip passes every archive limit of lib/ingestion/parsers/docx.ts (three
// entries, a declared ratio near 3:1, under 64 MB of XML) and holds ~60 MB of document XML in an
// ~18 MB file. The attack run's file of this shape blocked the main thread ~20 s and the
// database 445 s. Written by hand with node:zlib, as scripts/make-fixtures.ts writes the zip-bomb
// fixtures (jszip, which mammoth uses, needs seconds more for 60 MB); generated once per
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

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;

/** A zip of deflated entries with true sizes (a valid archive; nothing lies). */
export function buildZip(files: Array<{ name: string; content: Buffer }>): Buffer {
  const out: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const f of files) {
    const name = Buffer.from(f.name, "utf8");
    const data = deflateRawSync(f.content, { level: 6 });
    const crc = crc32(f.content) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(f.content.length, 22);
    local.writeUInt16LE(name.length, 26);
    out.push(local, name, data);
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE(20, 4);
    ch.writeUInt16LE(20, 6);
    ch.writeUInt16LE(0x0800, 8);
    ch.writeUInt16LE(8, 10);
    ch.writeUInt32LE(crc, 16);
    ch.writeUInt32LE(data.length, 20);
    ch.writeUInt32LE(f.content.length, 24);
    ch.writeUInt16LE(name.length, 28);
    ch.writeUInt32LE(offset, 42);
    central.push(ch, name);
    offset += 30 + name.length + data.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...out, cd, end]);
}

export function hostileDocx(opts: HostileDocxOptions = {}): Buffer {
  return buildZip([
    { name: "[Content_Types].xml", content: Buffer.from(CONTENT_TYPES) },
    { name: "_rels/.rels", content: Buffer.from(RELS) },
    { name: "word/document.xml", content: hostileDocumentXml(opts) },
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

export { readFileSync as readCached };
