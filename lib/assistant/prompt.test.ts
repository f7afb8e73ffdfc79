import { describe, expect, it } from "vitest";
import { getEnv } from "@/lib/env";
import type { RetrievalHit } from "@/lib/retrieval/types";
import { buildGroundedMessages, selectContext } from "./prompt";

const hit = (n: number, content: string) =>
  ({ id: `c${n}`, chunkId: `c${n}`, fileName: `f${n}.md`, pageStart: null, pageEnd: null, headingPath: "", content, score: 0.9 }) as RetrievalHit;

// The defaults of SPEC §5 / issue #5: 3 references x 650 characters, 1950 in all.
const DEFAULT_BUDGET = { maxChunks: 3, charsPerChunk: 650, totalChars: 1950 };

describe("prompt context budget", () => {
  it("defaults to the budget above (chat.ts reads it from the environment)", () => {
    const env = getEnv();
    expect({ maxChunks: env.PROMPT_MAX_CHUNKS, charsPerChunk: env.PROMPT_CHUNK_CHARS }).toEqual({ maxChunks: 3, charsPerChunk: 650 });
  });

  it("keeps at most three references of 650 characters each, numbered as the hits", () => {
    const hits = Array.from({ length: 5 }, (_, i) => hit(i + 1, String.fromCharCode(0x4e00 + i).repeat(1000)));
    const blocks = selectContext(hits, DEFAULT_BUDGET);
    expect(blocks.map((b) => b.index)).toEqual([1, 2, 3]);
    expect(blocks.map((b) => b.text.length)).toEqual([650, 650, 650]);
    expect(blocks[0]!.text).toBe(hits[0]!.content.slice(0, 650));
  });

  it("stops at the total, cutting the reference that reaches it", () => {
    const hits = [hit(1, "a".repeat(600)), hit(2, "b".repeat(600)), hit(3, "c".repeat(600)), hit(4, "d".repeat(600))];
    const blocks = selectContext(hits, { maxChunks: 4, charsPerChunk: 650, totalChars: 1500 });
    expect(blocks.map((b) => b.text.length)).toEqual([600, 600, 300]);
    expect(blocks.reduce((n, b) => n + b.text.length, 0)).toBe(1500);
  });

  it("puts exactly the selected text into the fenced references, and history before the question", () => {
    const blocks = selectContext([hit(1, "x".repeat(900))], DEFAULT_BUDGET);
    const history = [
      { role: "user" as const, content: "上一个问题" },
      { role: "assistant" as const, content: "上一个回答" },
    ];
    const messages = buildGroundedMessages("问题", history, blocks);
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    const user = messages.at(-1)!.content;
    expect(user).toContain(`${"x".repeat(650)}\n`);
    expect(user).not.toContain("x".repeat(651));
    expect(user.endsWith("用户问题：\n问题")).toBe(true);
  });
});
