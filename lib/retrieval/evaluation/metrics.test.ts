import { describe, expect, it } from "vitest";
import { hitMatches, MetricsAccumulator, passageMatches } from "./metrics";
import { parseCsv, parseJsonl } from "./question-set";

const q = (p: Partial<{ expected_file: string | null; expected_page: number | null; expected_text: string | null }>) => ({ expected_file: null, expected_page: null, expected_text: null, ...p });
const hit = (p: Partial<{ file_name: string; page_start: number | null; page_end: number | null; content: string }>) => ({ file_name: "a.pdf", page_start: 2, page_end: 3, content: "Shipment 123405 left the Rotterdam warehouse.", ...p });

describe("hit judging", () => {
  it("meets every expectation given: file (by base name, case-folded), page range, passage", () => {
    expect(hitMatches(q({ expected_file: "docs/A.pdf" }), hit({}))).toBe(true);
    expect(hitMatches(q({ expected_file: "b.pdf" }), hit({}))).toBe(false);
    expect(hitMatches(q({ expected_page: 3 }), hit({}))).toBe(true);
    expect(hitMatches(q({ expected_page: 4 }), hit({}))).toBe(false);
    expect(hitMatches(q({ expected_page: 1 }), hit({ page_start: null, page_end: null }))).toBe(false);
    expect(hitMatches(q({ expected_file: "a.pdf", expected_text: "left the  ROTTERDAM warehouse" }), hit({}))).toBe(true);
    expect(hitMatches(q({ expected_file: "a.pdf", expected_text: "Hamburg by truck" }), hit({}))).toBe(false);
    expect(hitMatches(q({}), hit({}))).toBe(false);
  });

  it("matches a passage that straddles a chunk boundary by most of its trigrams", () => {
    expect(passageMatches("Shipment 123405 left the Rotterdam warehouse on 4 March", "Shipment 123405 left the Rotterdam warehouse.")).toBe(true);
    expect(passageMatches("completely different words here", "Shipment 123405 left the Rotterdam warehouse.")).toBe(false);
  });
});

describe("metrics", () => {
  it("computes nDCG@10, Recall@k, MRR@10 and refusal rates by hand", () => {
    const acc = new MetricsAccumulator();
    const a = (rank: number | null, refused = false, topScore = 0.8) => acc.add({ answerable: true, firstCorrectRank: rank, topScore, topCorrect: rank === 1, refused, failed: false });
    a(1);
    a(3);
    a(12, true, 0.3);
    a(null, true, 0.2);
    acc.add({ answerable: false, firstCorrectRank: null, topScore: 0.6, topCorrect: false, refused: false, failed: false });
    acc.add({ answerable: false, firstCorrectRank: null, topScore: null, topCorrect: null, refused: true, failed: false });
    acc.add({ answerable: true, firstCorrectRank: null, topScore: null, topCorrect: null, refused: true, failed: true });
    const m = acc.result();
    expect(m).toMatchObject({ questions: 7, answerable: 4, unanswerable: 2, failed: 1 });
    expect(m.ndcg_at_10).toBeCloseTo((1 + 1 / Math.log2(4)) / 4, 12);
    expect(m.mrr_at_10).toBeCloseTo((1 + 1 / 3) / 4, 12);
    expect(m.recall_at_5).toBe(0.5);
    expect(m.recall_at_20).toBe(0.75);
    expect(m.recall_by_rank.slice(0, 3)).toEqual([0.25, 0.25, 0.5]);
    expect(m.refusal_rate_answerable).toBe(0.5);
    expect(m.refusal_rate_unanswerable).toBe(0.5);
    // Top hits: Q1 correct (0.8 → bin 16); Q2 (0.8), Q3 (0.3), Q4 (0.2) and the unanswerable 0.6 incorrect.
    expect(m.score_histogram.correct[16]).toBe(1);
    expect(m.score_histogram.incorrect.reduce((x, y) => x + y, 0)).toBe(4);
  });
});

describe("question set parsing", () => {
  it("keeps good rows and reports bad ones by line (CSV and JSONL)", () => {
    const csv = parseCsv("question,page,unanswerable\nok,2,no\nbad page,x,no\nno expectation,,\nzebra?,,yes\n");
    expect(csv.questions.map((x) => x.question)).toEqual(["ok", "zebra?"]);
    expect(csv.errors.map((e) => e.line)).toEqual([3, 4]);
    const jl = parseJsonl('{"question":"a","expected_file":"x"}\n{oops\n\n{"question":"b","unanswerable":true,"extra":1}\n');
    expect(jl.questions).toHaveLength(1);
    expect(jl.errors.map((e) => e.line)).toEqual([2, 4]);
  });
});
