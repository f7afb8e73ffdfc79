import { describe, expect, it } from "vitest";
import {
  applyRerank,
  calibrateCosine,
  calibrateExternal,
  calibrateLexical,
  DEFAULT_LEXICAL_CALIBRATION,
  fuseScores,
  lexicalRatio,
} from "../calibrate";
import { ANSWERABILITY, answerability, answerabilityCap } from "../calibrate";

const grid = [-5, -1, 0, 1e-9, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1, 1.5, 2, 5, 100, 1e9, Infinity, NaN];

describe("calibration", () => {
  it("keeps every lexical score within [0,1], 0 for no match, midpoint → 0.5", () => {
    for (const r of grid) {
      const s = calibrateLexical(r);
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
    }
    expect(calibrateLexical(0)).toBe(0);
    expect(calibrateLexical(DEFAULT_LEXICAL_CALIBRATION.midpoint)).toBeCloseTo(0.5, 1);
    expect(calibrateLexical(Infinity)).toBe(1);
  });

  it("is monotonic (non-decreasing) in the ratio and strictly increasing around the threshold", () => {
    let prev = -1;
    for (let r = 0; r <= 3; r += 0.01) {
      const s = calibrateLexical(r);
      expect(s).toBeGreaterThanOrEqual(prev);
      prev = s;
    }
    const m = DEFAULT_LEXICAL_CALIBRATION.midpoint;
    expect(calibrateLexical(m + 0.05)).toBeGreaterThan(calibrateLexical(m - 0.05));
  });

  it("inverse maps a calibrated score back to its ratio", async () => {
    const { inverseCalibrateLexical } = await import("../calibrate");
    for (const r of [0.05, 0.3, 0.45, 0.7, 1.2]) expect(inverseCalibrateLexical(calibrateLexical(r))).toBeCloseTo(r, 6);
  });

  it("ratio is bm25 over the idf mass and 0 when either is 0", () => {
    expect(lexicalRatio(3, 6)).toBe(0.5);
    expect(lexicalRatio(0, 6)).toBe(0);
    expect(lexicalRatio(3, 0)).toBe(0);
  });

  it("cosine, fusion, rerank and external scores stay within [0,1] and are monotonic", () => {
    let prev = -1;
    for (let c = -1; c <= 1; c += 0.05) {
      const s = calibrateCosine(c);
      expect(s).toBeGreaterThanOrEqual(prev);
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
      prev = s;
    }
    for (const a of [0, 0.2, 0.5, 1]) {
      for (const b of [0, 0.3, 1]) {
        const f = fuseScores(a, b);
        expect(f).toBeGreaterThanOrEqual(Math.max(a, b) - 1e-12);
        expect(f).toBeLessThanOrEqual(1);
      }
    }
    expect(fuseScores(0.6, null)).toBeCloseTo(0.6);
    expect(fuseScores(null, 0.4)).toBeCloseTo(0.4);
    expect(applyRerank(0.2, 0.9)).toBeGreaterThan(applyRerank(0.2, 0.1));
    expect(applyRerank(0.5, NaN)).toBe(0.5);
    for (const x of [-3, 0, 0.4, 1, 7, NaN, undefined, "0.9"]) {
      const s = calibrateExternal(x, 0, 3);
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
    }
    expect(calibrateExternal(undefined, 0, 3)).toBeGreaterThan(calibrateExternal(undefined, 2, 3));
  });
});

describe("answerability cap", () => {
  const f = (coverage: number, matchedShare: number, absentShare: number) => ({ coverage, matchedShare, absentShare });

  it("is exactly 0.5 where P(answerable) equals τ, and stays in 0..1", () => {
    // Solve the model for the coverage that gives P = τ with the other features fixed.
    const m = ANSWERABILITY;
    const logitTau = Math.log(m.tau / (1 - m.tau));
    const coverage = (logitTau - m.intercept - m.matchedShare * 0.5) / m.coverage;
    expect(answerability(f(coverage, 0.5, 0))).toBeCloseTo(m.tau, 12);
    expect(answerabilityCap(f(coverage, 0.5, 0))).toBeCloseTo(0.5, 12);
    for (const x of [f(0, 0, 1), f(5, 1, 0), f(-1, -1, 2), f(Number.NaN, 0, 0)]) {
      const a = answerabilityCap(x);
      expect(a).toBeGreaterThanOrEqual(0);
      expect(a).toBeLessThanOrEqual(1);
    }
  });

  it("rises with the best chunk's coverage and matched share, falls with the share the KB lacks", () => {
    expect(answerabilityCap(f(0.6, 0.5, 0))).toBeGreaterThan(answerabilityCap(f(0.3, 0.5, 0)));
    expect(answerabilityCap(f(0.5, 0.8, 0))).toBeGreaterThan(answerabilityCap(f(0.5, 0.4, 0)));
    expect(answerabilityCap(f(0.5, 0.5, 0.4))).toBeLessThan(answerabilityCap(f(0.5, 0.5, 0)));
    // A question whose rare half is absent from the KB is capped below min_score 0.5 even when
    // a chunk covers the rest well; a question fully covered is not.
    expect(answerabilityCap(f(0.4, 0.4, 0.6))).toBeLessThan(0.5);
    expect(answerabilityCap(f(0.9, 1, 0))).toBeGreaterThan(0.9);
  });

  it("a higher τ makes the cap stricter", () => {
    const x = f(0.5, 0.6, 0.1);
    expect(answerabilityCap(x, { ...ANSWERABILITY, tau: 0.5 })).toBeLessThan(answerabilityCap(x, { ...ANSWERABILITY, tau: 0.2 }));
  });
});
