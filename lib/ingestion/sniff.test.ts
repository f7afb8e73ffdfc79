import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { detectMagic, sniffBuffer, TextValidator } from "./sniff";

const FIX = path.resolve(import.meta.dirname, "../../e2e/fixtures");
const fx = (n: string) => readFileSync(path.join(FIX, n));

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    return e as AppError;
  }
  throw new Error("expected a rejection");
}

describe("sniffBuffer", () => {
  it("accepts real files whose content and extension agree", async () => {
    expect((await sniffBuffer("手册.pdf", fx("zh-handbook.pdf"))).fileType).toBe("pdf");
    expect((await sniffBuffer("Report.DOCX", fx("report.docx"))).fileType).toBe("docx");
    expect((await sniffBuffer("guide.md", fx("guide.md"))).fileType).toBe("md");
    expect((await sniffBuffer("guide.markdown", fx("guide.md"))).fileType).toBe("md");
    expect((await sniffBuffer("notes.txt", fx("notes.txt"))).fileType).toBe("txt");
    expect((await sniffBuffer("privacy.htm", fx("privacy.html"))).fileType).toBe("html");
    // A .txt that is an HTML document is parsed as HTML (so its scripts are dropped).
    expect((await sniffBuffer("saved.txt", fx("privacy.html"))).fileType).toBe("html");
  });

  it("rejects a PNG named .pdf, saying what it is", async () => {
    const e = await rejection(sniffBuffer("photo.pdf", fx("png-named.pdf")));
    expect(e.code).toBe("FILE_TYPE_UNSUPPORTED");
    expect(e.message).toMatch(/PNG image, not a PDF/);
  });

  it("rejects zero bytes", async () => {
    const e = await rejection(sniffBuffer("empty.txt", Buffer.alloc(0)));
    expect(e.code).toBe("FILE_TYPE_UNSUPPORTED");
    expect(e.message).toMatch(/empty/);
  });

  it("rejects content/extension mismatches both ways", async () => {
    expect((await rejection(sniffBuffer("a.txt", fx("zh-handbook.pdf")))).message).toMatch(/PDF, not text/);
    expect((await rejection(sniffBuffer("a.docx", fx("zh-handbook.pdf")))).message).toMatch(/not a Word document/);
    expect((await rejection(sniffBuffer("a.pdf", fx("report.docx")))).message).toMatch(/zip archive, not a PDF/);
  });

  it("rejects a zip that is not a Word document", async () => {
    // The DOCX with its main part renamed.
    const buf = Buffer.from(fx("report.docx"));
    let i = -1;
    while ((i = buf.indexOf("word/document.xml", i + 1)) !== -1) buf.write("word/documenX.xml", i);
    const e = await rejection(sniffBuffer("x.docx", buf));
    expect(e.message).toMatch(/without word\/document\.xml/);
  });

  it("rejects unknown extensions and binary or non-UTF-8 text", async () => {
    expect((await rejection(sniffBuffer("a.exe", Buffer.from("MZ....")))).message).toMatch(/extension \.exe are not supported/);
    expect((await rejection(sniffBuffer("README", Buffer.from("hello")))).message).toMatch(/no extension/);
    expect((await rejection(sniffBuffer("a.txt", Buffer.from([0x68, 0x00, 0x69])))).message).toMatch(/NUL/);
    const gbk = Buffer.from([0xc4, 0xe3, 0xba, 0xc3]); // "你好" in GBK
    expect((await rejection(sniffBuffer("a.txt", gbk))).message).toMatch(/not valid UTF-8/);
    expect((await rejection(sniffBuffer("a.md", Buffer.from([0xff, 0xfe, 0x41, 0x00])))).message).toMatch(/UTF-16/);
  });

  it("accepts UTF-8 with a BOM", async () => {
    expect((await sniffBuffer("a.txt", Buffer.from("\ufeff你好", "utf8"))).fileType).toBe("txt");
  });
});

describe("TextValidator", () => {
  it("handles multi-byte characters split across chunks", () => {
    const bytes = Buffer.from("知识库助手", "utf8");
    const v = new TextValidator();
    for (const b of bytes) v.push(Uint8Array.of(b));
    expect(v.finish().ok).toBe(true);
  });
  it("flags a truncated character at the end", () => {
    const v = new TextValidator();
    v.push(Buffer.from("知识", "utf8").subarray(0, 4));
    expect(v.finish().ok).toBe(false);
  });
});

describe("detectMagic", () => {
  it("finds %PDF- after a little junk", () => {
    expect(detectMagic(Buffer.from("\r\n%PDF-1.7\n")).kind).toBe("pdf");
    expect(detectMagic(Buffer.from("hello")).kind).toBe("text-candidate");
  });
});
