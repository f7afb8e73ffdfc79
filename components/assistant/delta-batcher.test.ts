import { describe, expect, it } from "vitest";
import { createDeltaBatcher } from "./delta-batcher";

function manualScheduler() {
  const queue: (() => void)[] = [];
  return { schedule: (cb: () => void) => void queue.push(cb), tick: () => queue.splice(0).forEach((cb) => cb()), size: () => queue.length };
}

describe("createDeltaBatcher", () => {
  it("coalesces many deltas into one flush per frame", () => {
    const s = manualScheduler();
    const flushed: string[] = [];
    const b = createDeltaBatcher((t) => flushed.push(t), s.schedule);
    for (let i = 0; i < 2000; i++) b.push("字");
    expect(s.size()).toBe(1);
    s.tick();
    expect(flushed).toEqual(["字".repeat(2000)]);
  });
  it("flushes synchronously before terminal events", () => {
    const s = manualScheduler();
    const flushed: string[] = [];
    const b = createDeltaBatcher((t) => flushed.push(t), s.schedule);
    b.push("a");
    b.flush();
    s.tick();
    expect(flushed).toEqual(["a"]);
  });
  it("drops the buffer after cancel", () => {
    const s = manualScheduler();
    const flushed: string[] = [];
    const b = createDeltaBatcher((t) => flushed.push(t), s.schedule);
    b.push("a");
    b.cancel();
    s.tick();
    b.push("b");
    expect(flushed).toEqual([]);
  });
});
