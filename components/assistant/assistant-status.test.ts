import { describe, expect, it } from "vitest";
import type { AssistantBootstrap, AssistantStatus } from "@/components/api/types";
import { composerEnabled, partialIndexingCount, resolveSelectedKb } from "./assistant-status";

const boot = (assistant_status: AssistantStatus, indexing = 0): AssistantBootstrap => ({
  knowledge: { id: "k", name: "k", file_count: 2, ready_file_count: 1, indexing_file_count: indexing, failed_file_count: 0 },
  assistant_status,
  input_enabled: assistant_status === "ready",
  max_question_length: 200,
});

describe("assistant status", () => {
  it("enables the composer only in ready", () => {
    expect(composerEnabled(boot("ready"))).toBe(true);
    for (const s of ["empty", "indexing", "failed", "disabled"] as const) expect(composerEnabled(boot(s))).toBe(false);
    expect(composerEnabled(undefined)).toBe(false);
  });
  it("reports files still indexing only when ready", () => {
    expect(partialIndexingCount(boot("ready", 2))).toBe(2);
    expect(partialIndexingCount(boot("indexing", 2))).toBe(0);
  });
});

describe("resolveSelectedKb", () => {
  const kbs = [{ id: "a" }, { id: "b" }];
  it("keeps the stored KB when still accessible", () => expect(resolveSelectedKb(kbs, "b")).toBe("b"));
  it("falls back to the first KB", () => expect(resolveSelectedKb(kbs, "gone")).toBe("a"));
  it("returns null with no KBs", () => expect(resolveSelectedKb([], "a")).toBeNull());
});
