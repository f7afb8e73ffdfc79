/**
 * A text PDF of `pages` pages for the tests of a large PDF's parse: a running header on every page
 * (dropped only when counted over the whole document), a chapter heading every 50 pages (its
 * level depends on the whole document's body size), a bare page number at the foot, and four
 * body lines naming the page ("Berth N takes vessels …").
 */
export async function harbourManualPdf(pages: number): Promise<Uint8Array> {
  const { PDFDocument, StandardFonts } = await import("pdf-lib");
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  for (let p = 1; p <= pages; p++) {
    const page = pdf.addPage([400, 300]);
    page.drawText("Harbour operations manual", { x: 40, y: 280, size: 8, font });
    let y = 250;
    if (p % 50 === 1) {
      page.drawText(`Chapter ${(p - 1) / 50 + 1}`, { x: 40, y, size: 16, font: bold });
      y -= 30;
    }
    const lines = [
      `Section ${p} of the harbour rules.`,
      `Berth ${p} takes vessels up to ${100 + p} metres.`,
      `The pilot boards berth ${p} traffic at the outer buoy.`,
      `Tugs ${p % 2 ? "assist" : "escort"} every tanker past the breakwater.`,
    ];
    lines.forEach((text, i) => page.drawText(text, { x: 40, y: y - 14 * i, size: 10, font }));
    page.drawText(`${p}`, { x: 190, y: 20, size: 8, font });
  }
  return pdf.save();
}
