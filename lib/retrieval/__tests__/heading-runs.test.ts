import { describe, expect, it } from "vitest";
import { headingTermRuns } from "../chunk-postings";

const c = (ordinal: number, headingPath: string) => ({ ordinal, headingPath });
const show = (runs: ReturnType<typeof headingTermRuns>) => runs.map((r) => `${r.term}:${r.first}-${r.last}`).sort();

describe("heading term runs (where a heading's words are shared)", () => {
  it("gives each heading term the runs of consecutive chunks whose heading holds it", () => {
    const runs = headingTermRuns([c(0, "Guide > Install"), c(1, "Guide > Install"), c(2, "Guide > Usage"), c(3, "Guide > Usage"), c(4, "Notes"), c(5, "Guide")]);
    // "Notes" and the last "Guide" head one chunk each: a chunk alone is its own section.
    expect(show(runs)).toEqual(["guid:0-3", "instal:0-1", "usag:2-3"]);
  });

  it("splits a term's run where a chunk between lacks it, or an ordinal is missing; order of input does not matter", () => {
    const runs = headingTermRuns([c(7, "嘉兴南站 > 历史"), c(0, "嘉兴南站"), c(1, "嘉兴南站"), c(2, "其他"), c(3, "嘉兴南站"), c(4, "嘉兴南站"), c(6, "嘉兴南站 > 历史")]);
    expect(show(runs)).toEqual(["南站:0-1", "南站:3-4", "南站:6-7", "历史:6-7", "嘉兴:0-1", "嘉兴:3-4", "嘉兴:6-7"]);
  });

  it("writes nothing for chunks without a heading or a file of one chunk", () => {
    expect(headingTermRuns([c(0, ""), c(1, ""), c(2, "")])).toEqual([]);
    expect(headingTermRuns([c(0, "Microstructural development of human newborn cerebral white matter")])).toEqual([]);
  });
});
