import { describe, expect, it } from "vitest";
import type { DocumentContent } from "@/components/api/types";
import { locateTarget, withPdfPages } from "./document-viewer";

const chunk = (ordinal: number, page_start: number | null, page_end: number | null, content: string) => ({
  id: `c${ordinal}`,
  ordinal,
  page_start,
  page_end,
  heading_path: null,
  content,
});
const doc = (file_type: string, page_count: number | null, chunks: DocumentContent["chunks"]): DocumentContent =>
  ({ file: { id: "f", name: `x.${file_type}`, file_type, page_count }, pages: null, chunks }) as unknown as DocumentContent;

describe("withPdfPages", () => {
  const pdf = doc("pdf", 4, [chunk(1, 1, 1, "第一页内容"), chunk(2, 2, 3, "跨页的段落：购买后 30 天内可以申请全额退款"), chunk(3, 3, 3, "第三页结尾")]);

  it("rebuilds one page per page number from the chunks covering it", () => {
    const pages = withPdfPages(pdf, true).pages!;
    expect(pages.map((p) => p.page)).toEqual([1, 2, 3, 4]);
    expect(pages[1]!.text).toContain("全额退款");
    expect(pages[2]!.text).toContain("全额退款");
    expect(pages[2]!.text).toContain("第三页结尾");
    expect(pages[3]!.text).toBe("");
  });
  it("lets the viewer locate the quote on the cited page", () => {
    const located = locateTarget(withPdfPages(pdf, true), { page: 2, quote: "购买后30天内可以申请全额退款…", chunkId: "c2" });
    expect(located).toMatchObject({ kind: "page", key: 2 });
    expect(located.range).not.toBeNull();
  });
  it("opens the page that holds the whole quote when the passage starts on an earlier page", () => {
    const sent = {
      ...pdf,
      pages: [
        { page: 1, text: "The keeper lights the lamp at dusk. The Rotholm" },
        { page: 2, text: "lighthouse was built in 1872. The Rotholm lighthouse was restored in 1990." },
        { page: 3, text: "Visitors may climb the tower." },
      ],
    };
    const located = locateTarget(sent, { page: 1, quote: "The Rotholm lighthouse was restored in 1990.", chunkId: "c1" });
    expect(located).toMatchObject({ kind: "page", key: 2 });
    expect(sent.pages[1]!.text.slice(located.range!.start, located.range!.end)).toBe("The Rotholm lighthouse was restored in 1990.");
  });
  it("keeps chunks for text-only renderers, non-PDF files and server-sent pages", () => {
    expect(withPdfPages(pdf, false).pages).toBeNull();
    expect(withPdfPages(doc("docx", null, [chunk(1, null, null, "x")]), true).pages).toBeNull();
    const sent = { ...pdf, pages: [{ page: 1, text: "from server" }] };
    expect(withPdfPages(sent, true)).toBe(sent);
  });
});
