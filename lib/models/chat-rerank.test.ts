import { describe, expect, it } from "vitest";
import { buildChatRerankMessages, parseChatRerankScores } from "./chat-rerank";

describe("chat-model rerank", () => {
  it("reads one 0-10 score per passage, in order, as 0..1 (fenced or with a sentence around it)", () => {
    expect(parseChatRerankScores('{"scores": [10, 0, 5]}', 3)).toEqual([1, 0, 0.5]);
    expect(parseChatRerankScores('```json\n{"scores":[7,3]}\n```', 2)).toEqual([0.7, 0.3]);
    expect(parseChatRerankScores('Here you go: {"scores":[2.5]} done', 1)).toEqual([0.25]);
  });

  it("refuses a reply that is not exactly one in-range number per passage", () => {
    expect(parseChatRerankScores('{"scores": [10, 0]}', 3)).toBeNull(); // too few
    expect(parseChatRerankScores('{"scores": [10, 0, 5, 1]}', 3)).toBeNull(); // too many
    expect(parseChatRerankScores('{"scores": [11, 0, 5]}', 3)).toBeNull(); // out of range
    expect(parseChatRerankScores('{"scores": [-1, 0, 5]}', 3)).toBeNull();
    expect(parseChatRerankScores('{"scores": ["9", 0, 5]}', 3)).toBeNull(); // not a number
    expect(parseChatRerankScores('{"ranking": [1, 2, 3]}', 3)).toBeNull();
    expect(parseChatRerankScores("9, 0, 5", 3)).toBeNull();
    expect(parseChatRerankScores('{"scores": [9, 0, 5', 3)).toBeNull();
  });

  it("numbers the passages, cuts long ones, and labels them untrusted", () => {
    const [system, user] = buildChatRerankMessages("battery warranty", ["a b", "x".repeat(2000)]);
    expect(system!.content).toContain("untrusted data");
    expect(user!.content).toContain("Query: battery warranty");
    expect(user!.content).toContain("[1] a b\n[2] ");
    expect(user!.content.length).toBeLessThan(800);
  });
});
