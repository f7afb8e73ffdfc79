import { describe, expect, it } from "vitest";
import { plainQuote, quoteView } from "./quote-text";

describe("reference quote text", () => {
  it("drops inline Markdown the source reader never sees", () => {
    expect(plainQuote("Administrators invite members from **Admin console → Members → Invite**. Use `email` and [the guide](https://x.example).")).toBe(
      "Administrators invite members from Admin console → Members → Invite. Use email and the guide.",
    );
    expect(plainQuote("## 3.1 系统要求\n> 注意 *重要* 事项")).toBe("3.1 系统要求\n注意 重要 事项");
    // Arithmetic and snake_case stay as written.
    expect(plainQuote("2 * 3 * 4 and max_pool_size")).toBe("2 * 3 * 4 and max_pool_size");
  });

  it("renders table rows (Markdown pipes or DOCX rows) as a table", () => {
    const md = quoteView("| Role | Can do |\n| --- | --- |\n| **Owner** | Everything |\n| Guest | Read |");
    expect(md).toEqual({ kind: "table", rows: [["Role", "Can do"], ["Owner", "Everything"], ["Guest", "Read"]], before: "", after: "" });
    const docx = quoteView("各产品线的季度收入如下表所示。\n产品线 | 第一季度 | 第二季度\n标准版订阅 | 12,480 | 13,020");
    expect(docx).toMatchObject({ kind: "table", before: "各产品线的季度收入如下表所示。", rows: [["产品线", "第一季度", "第二季度"], ["标准版订阅", "12,480", "13,020"]] });
    expect(quoteView("a | b")).toEqual({ kind: "text", text: "a | b" });
  });

  it("parses Markdown, not patterns: escapes, nested emphasis, lists and HTML read as the source does", () => {
    expect(plainQuote("Use \\*literal\\* stars and ***both*** and ~~old~~ text.")).toBe("Use *literal* stars and both and old text.");
    expect(plainQuote("1. Open **Settings**\n2. Choose _Members_")).toBe("1. Open Settings\n2. Choose Members");
    expect(plainQuote("- one\n- two")).toBe("• one\n• two");
    expect(plainQuote("a <b>bold</b> tag")).toBe("a <b>bold</b> tag");
  });
});
