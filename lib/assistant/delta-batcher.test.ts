import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DeltaBatcher } from "./delta-batcher";

describe("DeltaBatcher", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("sends the first delta at once and coalesces the next ones within the window", () => {
    const sent: string[] = [];
    const b = new DeltaBatcher((t) => sent.push(t), 40);
    b.push("A");
    expect(sent).toEqual(["A"]);
    b.push("b");
    b.push("c");
    expect(sent).toEqual(["A"]);
    vi.advanceTimersByTime(39);
    expect(sent).toEqual(["A"]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual(["A", "bc"]);
    b.push("d");
    vi.advanceTimersByTime(40);
    expect(sent).toEqual(["A", "bc", "d"]);
  });

  it("flush sends what is pending now and cancels the timer; nothing is lost or sent twice", () => {
    const sent: string[] = [];
    const b = new DeltaBatcher((t) => sent.push(t), 40);
    for (const t of ["x", "y", "z"]) b.push(t);
    b.flush();
    expect(sent).toEqual(["x", "yz"]);
    vi.advanceTimersByTime(100);
    b.flush();
    b.push("");
    expect(sent).toEqual(["x", "yz"]);
    expect(sent.join("")).toBe("xyz");
  });
});
