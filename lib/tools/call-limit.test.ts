import { describe, expect, it } from "vitest";
import { acquireToolSlot } from "./call-limit";

describe("acquireToolSlot", () => {
  it("admits at most max calls per key, per key, and frees a slot once per release", () => {
    const slots = Array.from({ length: 3 }, () => acquireToolSlot("t1", 3));
    expect(slots.every(Boolean)).toBe(true);
    expect(acquireToolSlot("t1", 3)).toBeNull();
    expect(acquireToolSlot("t2", 3)).not.toBeNull();
    slots[0]!();
    slots[0]!();
    expect(acquireToolSlot("t1", 3)).not.toBeNull();
    expect(acquireToolSlot("t1", 3)).toBeNull();
  });
});
