import { describe, expect, it } from "vitest";
import { fileExtension, MAX_DISPLAY_NAME_CHARS, normalizeDisplayName } from "./file-name";

describe("normalizeDisplayName", () => {
  it("strips path parts with either separator", () => {
    expect(normalizeDisplayName("../../etc/passwd")).toBe("passwd");
    expect(normalizeDisplayName("C:\\Users\\me\\report.pdf")).toBe("report.pdf");
    expect(normalizeDisplayName("a/b\\c/d.txt")).toBe("d.txt");
    expect(normalizeDisplayName("dir/")).toBe("dir");
  });

  it("keeps an HTML-looking name as text (escaping is the renderer's job) but without the path", () => {
    const n = normalizeDisplayName("../../etc/passwd<img src=x onerror=alert(1)>.pdf");
    // The "/" inside the tag is a path separator too: only the last part survives.
    expect(n).not.toContain("/");
    expect(n).not.toContain("..");
    expect(n.endsWith(".pdf")).toBe(true);
    expect(fileExtension(n)).toBe("pdf");
  });

  it("removes control and bidi override characters", () => {
    expect(normalizeDisplayName("evil\u202Efdp.exe")).toBe("evilfdp.exe");
    expect(normalizeDisplayName("a\u2066b\u2069c\u200F.txt")).toBe("abc.txt");
    expect(normalizeDisplayName("line\nbreak\t\u0000x\u0007.md")).toBe("line break x.md");
    expect(normalizeDisplayName("\u0085nel\u009b.md")).toBe("nel.md");
  });

  it("applies NFC", () => {
    const decomposed = "Cafe\u0301.md";
    expect(normalizeDisplayName(decomposed)).toBe("Caf\u00e9.md");
  });

  it("trims whitespace and dots, never returns empty", () => {
    expect(normalizeDisplayName("   报告.pdf  ")).toBe("报告.pdf");
    expect(normalizeDisplayName("...")).toBe("untitled");
    expect(normalizeDisplayName("")).toBe("untitled");
    expect(normalizeDisplayName(null)).toBe("untitled");
    expect(normalizeDisplayName("/\\/")).toBe("untitled");
    expect(normalizeDisplayName(".hidden.txt")).toBe("hidden.txt");
  });

  it("bounds the length and keeps the extension", () => {
    const long = `${"很长的文件名".repeat(100)}.docx`;
    const n = normalizeDisplayName(long);
    expect(Array.from(n).length).toBeLessThanOrEqual(MAX_DISPLAY_NAME_CHARS);
    expect(n.endsWith("….docx")).toBe(true);
    // Astral characters are not split.
    const emoji = normalizeDisplayName(`${"😀".repeat(300)}.md`, 20);
    expect(emoji).toMatch(/^😀+….md$/u);
    expect(Array.from(emoji).length).toBe(20);
  });
});

describe("fileExtension", () => {
  it("returns the lower-case extension or empty", () => {
    expect(fileExtension("A.PDF")).toBe("pdf");
    expect(fileExtension("archive.tar.gz")).toBe("gz");
    expect(fileExtension("README")).toBe("");
    expect(fileExtension(".env")).toBe("");
    expect(fileExtension("x.")).toBe("");
  });
});
