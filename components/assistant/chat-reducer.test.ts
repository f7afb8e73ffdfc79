import { describe, expect, it } from "vitest";
import type { SourceReference } from "@/components/api/types";
import { chatReducer, emptySession, fromStored, type ChatAction, type ChatSession } from "./chat-reducer";

const ref = (index: number): SourceReference => ({
  ref_id: `ref_${index}`,
  index,
  file_id: "f",
  file_name: "a.pdf",
  page_start: 1,
  page_end: 1,
  heading_path: null,
  quote: "q",
  score: 0.8,
  chunk_id: "c",
  source_type: "knowledge-base",
  source_id: "c",
  source_uri: null,
  source_name: null,
});

const run = (actions: ChatAction[], s: ChatSession = emptySession()) => actions.reduce(chatReducer, s);
const ask: ChatAction = { type: "ask", userId: "u1", assistantId: "a1", question: "问题" };

describe("chatReducer", () => {
  it("adds the question and a pending placeholder", () => {
    const s = run([ask]);
    expect(s.activeId).toBe("a1");
    expect(s.messages.map((m) => [m.role, m.phase])).toEqual([
      ["user", "done"],
      ["assistant", "pending"],
    ]);
  });
  it("keeps the translated queries the retrieval summary reports", () => {
    const s = run([ask, { type: "retrieval", status: "done", hitCount: 1, translatedQueries: [{ language: "en", query: "When does Zephyr launch?" }] }]);
    expect(s.messages[1]!.translatedQueries).toEqual([{ language: "en", query: "When does Zephyr launch?" }]);
  });
  it("follows start → retrieval → references → deltas → done", () => {
    const s = run([
      ask,
      { type: "start", conversationId: "c1", messageId: "m1" },
      { type: "retrieval", status: "searching" },
      { type: "retrieval", status: "done", hitCount: 2 },
      { type: "references", items: [ref(2), ref(1)] },
      { type: "delta", text: "答" },
      { type: "delta", text: "案 [1]" },
      { type: "done", messageId: "m1", finishReason: "stop", engine: "extractive" },
    ]);
    const a = s.messages[1]!;
    expect(s.conversationId).toBe("c1");
    expect(s.activeId).toBeNull();
    expect(a.content).toBe("答案 [1]");
    expect(a.references.map((r) => r.index)).toEqual([1, 2]);
    expect(a.phase).toBe("done");
    expect(a.engine).toBe("extractive");
  });
  it("shows retrieving while searching", () => {
    expect(run([ask, { type: "retrieval", status: "searching" }]).messages[1]!.phase).toBe("retrieving");
  });
  it("keeps the question and records the error", () => {
    const s = run([ask, { type: "error", code: "NO_RELEVANT_CONTEXT", message: "x" }]);
    expect(s.messages[0]!.content).toBe("问题");
    expect(s.messages[1]!.phase).toBe("error");
    expect(s.messages[1]!.error?.code).toBe("NO_RELEVANT_CONTEXT");
    expect(s.messages[1]!.question).toBe("问题");
    expect(s.activeId).toBeNull();
  });
  it("keeps partial text when stopped and ignores events after", () => {
    const s = run([ask, { type: "delta", text: "部分" }, { type: "stopped" }, { type: "delta", text: "更多" }]);
    expect(s.messages[1]!.phase).toBe("stopped");
    expect(s.messages[1]!.content).toBe("部分");
  });
  it("does not turn a finished answer into stopped", () => {
    const s = run([ask, { type: "done" }]);
    expect(chatReducer({ ...s, activeId: "a1" }, { type: "stopped" }).messages[1]!.phase).toBe("done");
  });
  it("removes a failed exchange for retry", () => {
    const s = run([ask, { type: "error", code: "MODEL_UNAVAILABLE", message: "" }, { type: "remove-exchange", assistantId: "a1" }]);
    expect(s.messages).toEqual([]);
  });
  it("resets to an empty conversation", () => {
    expect(run([ask, { type: "reset" }])).toEqual(emptySession());
  });
});

describe("fromStored", () => {
  it("orders messages and maps aborted answers to stopped", () => {
    const msgs = fromStored([
      { id: "2", role: "assistant", content: "半", references: [ref(1)], finish_reason: "aborted", engine: "model", created_at: "2026-01-01T00:00:02Z" },
      { id: "1", role: "user", content: "问", references: null, finish_reason: null, engine: null, created_at: "2026-01-01T00:00:01Z" },
    ]);
    expect(msgs.map((m) => m.id)).toEqual(["1", "2"]);
    expect(msgs[1]!.phase).toBe("stopped");
    expect(msgs[1]!.question).toBe("问");
  });

  it("restores a no-context turn, a model error with its partial text and its code, as they ended live", () => {
    const at = (s: number) => `2026-01-01T00:00:0${s}Z`;
    const msgs = fromStored([
      { id: "1", role: "user", content: "量子引力", references: null, finish_reason: null, engine: null, created_at: at(1) },
      { id: "2", role: "assistant", content: "", references: [], finish_reason: "no_context", engine: "none", metadata: { error_code: "NO_RELEVANT_CONTEXT" }, created_at: at(2) },
      { id: "3", role: "user", content: "退款", references: null, finish_reason: null, engine: null, created_at: at(3) },
      { id: "4", role: "assistant", content: "30 天内", references: [ref(1)], finish_reason: "error", engine: "model:x", metadata: { error_code: "MODEL_UNAVAILABLE", partial: true }, created_at: at(4) },
      { id: "5", role: "user", content: "旧", references: null, finish_reason: null, engine: null, created_at: at(5) },
      { id: "6", role: "assistant", content: "", references: [], finish_reason: "no_context", engine: "none", metadata: null, created_at: at(6) },
    ]);
    expect(msgs[1]).toMatchObject({ phase: "error", error: { code: "NO_RELEVANT_CONTEXT" }, question: "量子引力" });
    expect(msgs[3]).toMatchObject({ phase: "error", content: "30 天内", error: { code: "MODEL_UNAVAILABLE" } });
    // Rows saved before the code was recorded still say why.
    expect(msgs[5]).toMatchObject({ phase: "error", error: { code: "NO_RELEVANT_CONTEXT" } });
  });

  it("shows an answer interrupted by a server stop as stopped, keeping its reason", () => {
    const msgs = fromStored([
      { id: "1", role: "user", content: "问", references: null, finish_reason: null, engine: null, created_at: "2026-01-01T00:00:01Z" },
      { id: "2", role: "assistant", content: "半句", references: [], finish_reason: "interrupted", engine: "model", created_at: "2026-01-01T00:00:02Z" },
    ]);
    expect(msgs[1]!.phase).toBe("stopped");
    expect(msgs[1]!.finishReason).toBe("interrupted");
  });
});

describe("chatReducer: edit and resend, feedback (issue 20)", () => {
  const turn = (n: number): ChatAction[] => [
    { type: "ask", userId: `u${n}`, assistantId: `a${n}`, question: `q${n}` },
    { type: "start", conversationId: "c1", messageId: `srv-a${n}`, userMessageId: `srv-u${n}` },
    { type: "done", messageId: `srv-a${n}`, finishReason: "stop" },
  ];

  it("start gives the question its server id, so it can be edited later", () => {
    const s = run(turn(1));
    expect(s.messages.map((m) => m.serverId)).toEqual(["srv-u1", "srv-a1"]);
  });

  it("truncate-from drops that message and every later one", () => {
    const s = run([...turn(1), ...turn(2), ...turn(3), { type: "truncate-from", messageId: "u2" }]);
    expect(s.messages.map((m) => m.id)).toEqual(["u1", "a1"]);
    expect(run([{ type: "truncate-from", messageId: "nope" }], s)).toBe(s);
  });

  it("feedback is set on the one answer and restored from the stored message", () => {
    const s = run([...turn(1), { type: "feedback", messageId: "a1", feedback: { rating: "down", comment: "x" } }]);
    expect(s.messages[1]!.feedback).toEqual({ rating: "down", comment: "x" });
    const stored = fromStored([
      { id: "u", role: "user", content: "q", references: [], finish_reason: null, engine: null, created_at: "2026-01-01T00:00:00.000Z" },
      { id: "a", role: "assistant", content: "x", references: [], finish_reason: "stop", engine: "extractive", feedback: { rating: "up", comment: null }, created_at: "2026-01-01T00:00:01.000Z" },
    ]);
    expect(stored[1]!.feedback).toEqual({ rating: "up", comment: null });
  });
});
