import { describe, expect, it } from "vitest";
import { orderAndValidate } from "@/lib/models/embeddings";

const fail = (reason: string) => new Error(reason);

describe("orderAndValidate", () => {
  it("orders rows by index", () => {
    const rows = [
      { index: 1, embedding: [0, 1] },
      { index: 0, embedding: [1, 0] },
    ];
    expect(orderAndValidate(rows, 2, undefined, fail)).toEqual([[1, 0], [0, 1]]);
  });

  it("rejects a wrong count, duplicates, non-finite values and mixed widths", () => {
    expect(() => orderAndValidate([{ embedding: [1] }], 2, undefined, fail)).toThrow(/1 vectors for 2/);
    expect(() => orderAndValidate([{ index: 0, embedding: [1] }, { index: 0, embedding: [1] }], 2, undefined, fail)).toThrow(/duplicate/);
    expect(() => orderAndValidate([{ embedding: [1, null] }], 1, undefined, fail)).toThrow(/non-finite/);
    expect(() => orderAndValidate([{ embedding: [1, "2"] }], 1, undefined, fail)).toThrow(/non-finite/);
    expect(() => orderAndValidate([{ embedding: [1, 2] }, { embedding: [1] }], 2, undefined, fail)).toThrow(/length 1/);
    expect(() => orderAndValidate([{ embedding: [1, 2] }], 1, 3, fail)).toThrow(/expected 3/);
    expect(() => orderAndValidate([{ embedding: [] }], 1, undefined, fail)).toThrow(/length 0/);
  });
});
