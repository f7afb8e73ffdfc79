import { describe, expect, it } from "vitest";
import type { SourceReference } from "@/components/api/types";
import { answerCopyText } from "./copy-text";

const ref = (index: number, quote: string, page: number | null = null) =>
  ({ index, ref_id: `ref_${index}`, file_name: `f${index}.pdf`, page_start: page, page_end: page, quote }) as SourceReference;
const labels = { references: "References", page: (p: number) => `page ${p}` };
const refs = [ref(1, "Launch is in **May**.", 2), ref(2, "Unused."), ref(3, "Budget is 2 M.")];

describe("answerCopyText", () => {
  it("without references drops the markers and the space they leave before punctuation", () => {
    expect(answerCopyText("Budget is 2 M [3]. Launch in May [1].", refs, false, labels)).toBe("Budget is 2 M. Launch in May.");
  });

  it("keeps a bracketed number that is no reference", () => {
    expect(answerCopyText("In [2024] the budget [3].", refs, false, labels)).toBe("In [2024] the budget.");
  });

  it("with references renumbers markers as shown and lists the cited passages in citation order", () => {
    expect(answerCopyText("Budget is 2 M [3]. Launch in May [1].", refs, true, labels)).toBe(
      "Budget is 2 M [1]. Launch in May [2].\n\nReferences\n[1] f3.pdf: Budget is 2 M.\n[2] f1.pdf, page 2: Launch is in May.",
    );
  });
});
