import { afterEach, describe, expect, it, vi } from "vitest";
import type { SourceReference } from "@/components/api/types";
import { hasSourceOpener, openSource, registerSourceOpener } from "./opener-registry";

const ref = (source_type: string) => ({ source_type, index: 1 }) as SourceReference;
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

describe("opener registry", () => {
  it("reports no opener for unknown types (plain-text fallback)", async () => {
    expect(hasSourceOpener("nobody")).toBe(false);
    expect(await openSource(ref("nobody"), { knowledgeId: null })).toBe("no-opener");
  });
  it("runs the registered opener with the context", async () => {
    const fn = vi.fn();
    cleanups.push(registerSourceOpener("wiki", fn));
    expect(await openSource(ref("wiki"), { knowledgeId: "kb" })).toBe("opened");
    expect(fn).toHaveBeenCalledWith(ref("wiki"), { knowledgeId: "kb" });
  });
  it("turns a throwing opener into a failure instead of an exception", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    cleanups.push(registerSourceOpener("bad", () => Promise.reject(new Error("boom"))));
    expect(await openSource(ref("bad"), { knowledgeId: null })).toBe("failed");
  });
  it("unregisters", () => {
    const off = registerSourceOpener("tmp", () => undefined);
    off();
    expect(hasSourceOpener("tmp")).toBe(false);
  });
});
