// A zip written by hand, entry by entry: stored sizes as given (a DOCX bomb may declare less than
// it holds), deflate at a chosen level. Used by scripts/make-fixtures.ts (the committed DOCX
// bombs) and by the generated hostile DOCX of issue 16 (e2e/integration/ingestion/support/
// hostile-uploads.ts), which jszip, mammoth's zip library, writes seconds slower at 60 MB.
import zlib from "node:zlib";

export interface ZipEntry {
  name: string;
  data: Buffer; // compressed (deflate-raw) bytes
  crc: number;
  uncompressedSize: number;
  /** What the headers claim instead of uncompressedSize (a lying archive). */
  declaredUncompressedSize?: number;
}

export function zipDeflated(name: string, content: Buffer, level = 9): ZipEntry {
  return { name, data: zlib.deflateRawSync(content, { level }), crc: zlib.crc32(content) >>> 0, uncompressedSize: content.length };
}

export function buildZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, "utf8");
    const size = e.declaredUncompressedSize ?? e.uncompressedSize;
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(0x04034b50, 0);
    lh.writeUInt16LE(20, 4);
    lh.writeUInt16LE(0x0800, 6); // UTF-8 names
    lh.writeUInt16LE(8, 8); // deflate
    lh.writeUInt32LE(0, 10); // time/date
    lh.writeUInt32LE(e.crc, 14);
    lh.writeUInt32LE(e.data.length, 18);
    lh.writeUInt32LE(size, 22);
    lh.writeUInt16LE(name.length, 26);
    lh.writeUInt16LE(0, 28);
    locals.push(lh, name, e.data);
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE(20, 4);
    ch.writeUInt16LE(20, 6);
    ch.writeUInt16LE(0x0800, 8);
    ch.writeUInt16LE(8, 10);
    ch.writeUInt32LE(0, 12);
    ch.writeUInt32LE(e.crc, 16);
    ch.writeUInt32LE(e.data.length, 20);
    ch.writeUInt32LE(size, 24);
    ch.writeUInt16LE(name.length, 28);
    ch.writeUInt32LE(offset, 42);
    centrals.push(ch, name);
    offset += 30 + name.length + e.data.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, eocd]);
}

/** The two package parts every DOCX needs besides word/document.xml. */
export const DOCX_CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
export const DOCX_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;
