import { describe, expect, it } from "vitest";
import { en, errorCopy, format, zh } from "./dictionary";

describe("dictionary", () => {
  it("has the same keys and placeholders in both languages", () => {
    expect(Object.keys(en).sort()).toEqual(Object.keys(zh).sort());
    const vars = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const k of Object.keys(zh) as (keyof typeof zh)[]) expect(vars(en[k]), k).toEqual(vars(zh[k]));
  });
  it("fills placeholders", () => {
    expect(format("{a}/{b}", { a: 1, b: 200 })).toBe("1/200");
  });
  it("has copy and a next step for NO_RELEVANT_CONTEXT, and a fallback for unknown codes", () => {
    expect(errorCopy("zh", "NO_RELEVANT_CONTEXT", "").next).toContain("上传");
    expect(errorCopy("en", "SOMETHING_NEW", "boom").text).toContain("boom");
  });
});

describe("one language at a time", () => {
  it("has the UI's own copy for every server error code and ingestion stage, in both languages", async () => {
    const { ERROR_CODES } = await import("@/lib/errors");
    const { JOB_STAGES } = await import("@/lib/ingestion/progress");
    for (const dict of [zh, en] as Record<string, string>[]) {
      for (const code of ERROR_CODES) expect(dict[`error.${code}`], code).toBeTruthy();
      for (const stage of JOB_STAGES) expect(dict[`status.${stage}`], stage).toBeTruthy();
    }
  });
});
