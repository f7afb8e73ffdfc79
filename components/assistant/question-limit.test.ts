import { describe, expect, it } from "vitest";
import { canSendQuestion, clampQuestion, countChars, counterTone, isSendKey } from "./question-limit";

describe("question limit", () => {
  it("counts code points, so an emoji is one character", () => {
    expect(countChars("你好😀")).toBe(3);
  });
  it("clamps to the limit without splitting a surrogate pair", () => {
    const r = clampQuestion("😀".repeat(201), 200);
    expect(r.truncated).toBe(true);
    expect(countChars(r.text)).toBe(200);
    expect(r.text.endsWith("😀")).toBe(true);
  });
  it("leaves text within the limit alone", () => {
    expect(clampQuestion("abc", 200)).toEqual({ text: "abc", truncated: false });
  });
  it("tones the counter near and at the limit", () => {
    expect(counterTone(10, 200)).toBe("normal");
    expect(counterTone(180, 200)).toBe("warn");
    expect(counterTone(200, 200)).toBe("limit");
  });
  it("cannot send blank questions", () => {
    expect(canSendQuestion("   \n", 200)).toBe(false);
    expect(canSendQuestion(" 问题 ", 200)).toBe(true);
  });
});

describe("isSendKey", () => {
  it("sends on plain Enter", () => {
    expect(isSendKey({ key: "Enter", shiftKey: false })).toBe(true);
  });
  it("never sends on Shift+Enter", () => {
    expect(isSendKey({ key: "Enter", shiftKey: true })).toBe(false);
  });
  it("never sends while an IME composition is open", () => {
    expect(isSendKey({ key: "Enter", shiftKey: false, isComposing: true })).toBe(false);
    expect(isSendKey({ key: "Enter", shiftKey: false, keyCode: 229 })).toBe(false);
    expect(isSendKey({ key: "Enter", shiftKey: false }, true)).toBe(false);
  });
  it("ignores other keys", () => {
    expect(isSendKey({ key: "a", shiftKey: false })).toBe(false);
  });
});
