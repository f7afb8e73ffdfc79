import { describe, expect, it } from "vitest";
import { en, format, zh, type MessageKey } from "@/components/i18n/dictionary";
import { stepLabel } from "./agent-steps";
import { chatReducer, emptySession, fromStored, type ChatAction } from "./chat-reducer";

const tz = (k: MessageKey, v?: Record<string, string | number>) => format(zh[k], v ?? {});
const te = (k: MessageKey, v?: Record<string, string | number>) => format(en[k], v ?? {});

describe("agent steps", () => {
  it("tool_call adds a running step, tool_result completes it, in call order", () => {
    const actions: ChatAction[] = [
      { type: "ask", userId: "u", assistantId: "a", question: "q" },
      { type: "tool_call", id: "c1", name: "knowledge_search", arguments: { queries: ["保修期"] } },
      { type: "tool_call", id: "c2", name: "grep_chunks", arguments: { keywords: ["保修"] } },
      { type: "tool_result", id: "c2", name: "grep_chunks", status: "error", count: 0, durationMs: 3, summary: "INVALID_PARAMS: x" },
    ];
    const s = actions.reduce(chatReducer, emptySession());
    const steps = s.messages[1]!.steps!;
    expect(steps.map((x) => [x.id, x.status])).toEqual([
      ["c1", "running"],
      ["c2", "error"],
    ]);
    const done = chatReducer(s, { type: "tool_result", id: "c1", name: "knowledge_search", status: "ok", count: 5, durationMs: 9, summary: "5 hits" });
    expect(done.messages[1]!.steps![0]).toMatchObject({ status: "ok", count: 5, duration_ms: 9 });
  });

  it("stored messages bring their saved steps back", () => {
    const [, m] = fromStored([
      { id: "u", role: "user", content: "q", references: [], finish_reason: null, engine: null, created_at: "2026-01-01T00:00:00Z" },
      {
        id: "a",
        role: "assistant",
        content: "x [1]",
        references: [],
        finish_reason: "stop",
        engine: "agent:m",
        created_at: "2026-01-01T00:00:01Z",
        metadata: { agent_steps: [{ id: "c1", name: "list_knowledge_chunks", arguments: { offset: 2 }, status: "ok", count: 5 }] },
      },
    ]);
    expect(m!.steps).toHaveLength(1);
  });

  it("labels steps in both languages", () => {
    expect(stepLabel({ id: "1", name: "knowledge_search", arguments: { queries: ["保修期"] }, status: "ok", count: 5 }, tz)).toBe("搜索 “保修期”：5 条");
    expect(stepLabel({ id: "2", name: "list_knowledge_chunks", arguments: { offset: 2, limit: 5 }, status: "ok", count: 5 }, tz)).toBe("读取文档 第 3–7 段");
    expect(stepLabel({ id: "3", name: "grep_chunks", arguments: { keywords: ["a", "b"] }, status: "ok", count: 2 }, te)).toBe("Find keywords “a”、“b”: 2 documents");
    expect(stepLabel({ id: "4", name: "query_knowledge_graph", arguments: {}, status: "ok", count: 3 }, te)).toBe("query_knowledge_graph: 3");
  });
});
