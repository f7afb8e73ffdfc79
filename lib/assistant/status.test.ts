import { describe, expect, it } from "vitest";
import { assistantStatus } from "./status";

const c = (file_count: number, ready: number, indexing: number, failed: number) => ({
  file_count,
  ready_file_count: ready,
  indexing_file_count: indexing,
  failed_file_count: failed,
});

describe("assistantStatus precedence", () => {
  it.each([
    ["no files", c(0, 0, 0, 0), true, "empty"],
    ["all indexing", c(3, 0, 3, 0), true, "indexing"],
    ["some ready, some indexing", c(3, 1, 2, 0), true, "ready"],
    ["some ready, some failed", c(2, 1, 0, 1), true, "ready"],
    ["indexing and failed, none ready", c(2, 0, 1, 1), true, "indexing"],
    ["all failed", c(2, 0, 0, 2), true, "failed"],
    ["disabled beats everything", c(2, 2, 0, 0), false, "disabled"],
    ["disabled with no files", c(0, 0, 0, 0), false, "disabled"],
  ] as const)("%s", (_name, counts, enabled, expected) => {
    expect(assistantStatus(counts, enabled)).toBe(expected);
  });
});
