import { deflateSync } from "node:zlib";

// Hand-built PDFs for the parser-limit tests: one page, Helvetica, the given content stream
// (Flate-compressed), with a correct cross-reference table, so pdf.js reads it without repair.

export function onePagePdf(content: Buffer | string, opts: { compressed?: Buffer } = {}): Buffer {
  const stream = opts.compressed ?? deflateSync(typeof content === "string" ? Buffer.from(content, "latin1") : content);
  const objects: Buffer[] = [
    Buffer.from("<< /Type /Catalog /Pages 2 0 R >>"),
    Buffer.from("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
    Buffer.from("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"),
    Buffer.concat([Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`), stream, Buffer.from("\nendstream")]),
    Buffer.from("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
  ];
  const parts: Buffer[] = [Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  const offsets: number[] = [];
  let pos = parts[0]!.length;
  objects.forEach((o, i) => {
    offsets.push(pos);
    const b = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), o, Buffer.from("\nendobj\n")]);
    parts.push(b);
    pos += b.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, "0000000000 65535 f \n", ...offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`)].join("");
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${pos}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A page of `runs` separately placed one-letter text runs. */
export function manyRunsContent(runs: number): string {
  const out: string[] = ["BT /F1 4 Tf"];
  for (let i = 0; i < runs; i++) out.push(`1 0 0 1 ${(i % 100) * 6} ${780 - (Math.floor(i / 100) % 190) * 4} Tm (w${i % 10}) Tj`);
  out.push("ET");
  return out.join("\n");
}
