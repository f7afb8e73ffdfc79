import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PartialSaver } from "./partial-saver";

// The write rate of the streaming save is bounded whatever the token rate (issue 16, item 5).
describe("PartialSaver", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setup() {
    const log: string[] = [];
    const io = {
      insert: vi.fn(async (c: string) => void log.push(`insert:${c}`)),
      update: vi.fn(async (c: string) => void log.push(`update:${c}`)),
    };
    return { log, io, saver: new PartialSaver(io, 1000, () => Date.now()) };
  }

  it("writes nothing for an answer that ends within the interval", async () => {
    const { io, saver } = setup();
    let text = "";
    for (let i = 0; i < 50; i++) {
      text += "字";
      saver.note(text);
      vi.advanceTimersByTime(10);
    }
    expect(await saver.settle()).toBe(false);
    expect(io.insert).not.toHaveBeenCalled();
  });

  it("inserts after the first interval, then updates at most once per interval, with the latest text", async () => {
    const { io, log, saver } = setup();
    let text = "";
    // 100 tokens a second for 5 s.
    for (let i = 0; i < 500; i++) {
      text += `${i},`;
      saver.note(text);
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(io.insert).toHaveBeenCalledTimes(1);
    expect(io.update.mock.calls.length).toBeGreaterThanOrEqual(3);
    expect(io.update.mock.calls.length).toBeLessThanOrEqual(4);
    // Text that came in a quiet gap is written by the timer.
    await vi.advanceTimersByTimeAsync(1500);
    expect(log.at(-1)).toBe(`update:${text}`);
    expect(await saver.settle()).toBe(true);
  });

  it("never runs two writes at once and retries the insert after a failure", async () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    let release!: () => void;
    let inFlight = 0;
    let maxInFlight = 0;
    let fail = true;
    const io = {
      insert: vi.fn(async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise<void>((r) => (release = r));
        inFlight--;
        if (fail) throw new Error("db down");
      }),
      update: vi.fn(async () => {}),
    };
    const saver = new PartialSaver(io, 100, () => Date.now());
    saver.note("a");
    await vi.advanceTimersByTimeAsync(150);
    saver.note("ab");
    expect(io.insert).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(io.insert).toHaveBeenCalledTimes(1);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(spy).toHaveBeenCalled();
    fail = false;
    await vi.advanceTimersByTimeAsync(200);
    expect(io.insert).toHaveBeenCalledTimes(2);
    release();
    expect(maxInFlight).toBe(1);
    expect(await saver.settle()).toBe(true);
    spy.mockRestore();
  });
});
