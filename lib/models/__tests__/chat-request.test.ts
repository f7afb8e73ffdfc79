import { describe, expect, it } from "vitest";
import { buildChatBody, parseChatChunk, thinkingOffExtras } from "@/lib/models/chat";
import { describeEndpoint, redactSecrets } from "@/lib/models/http";

describe("thinkingOffExtras", () => {
  it.each([
    ["qwen3.6-plus", "https://example.com/v1", { enable_thinking: false }],
    ["Qwen-Max", "http://127.0.0.1:1/v1", { enable_thinking: false }],
    ["deepseek-v3.1", "https://dashscope.aliyuncs.com/compatible-mode/v1", { enable_thinking: false }],
    ["anything", "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", { enable_thinking: false }],
    ["deepseek-chat", "https://api.deepseek.com/v1", { thinking: { type: "disabled" } }],
    ["DeepSeek-V3", "https://gateway.example/v1", { thinking: { type: "disabled" } }],
    ["gpt-4o-mini", "https://api.openai.com/v1", {}],
    ["llama3", "not a url", {}],
  ])("%s at %s", (model, baseUrl, expected) => {
    expect(thinkingOffExtras(model, baseUrl)).toEqual(expected);
  });
});

describe("buildChatBody", () => {
  const req = {
    baseUrl: "https://x.test/v1",
    model: "qwen-plus",
    messages: [{ role: "user" as const, content: "hi" }],
    temperature: 0.2,
    maxTokens: 1024,
  };

  it("streams with usage, and carries the thinking-off extras", () => {
    expect(buildChatBody(req, true)).toEqual({
      enable_thinking: false,
      model: "qwen-plus",
      messages: req.messages,
      temperature: 0.2,
      max_tokens: 1024,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("lets extraBody override extras but never the core fields", () => {
    const body = buildChatBody({ ...req, extraBody: { enable_thinking: true, stream: false, model: "evil", seed: 7 } }, true);
    expect(body).toMatchObject({ enable_thinking: true, seed: 7, stream: true, model: "qwen-plus" });
  });

  it("non-streaming omits stream_options", () => {
    expect(buildChatBody(req, false)).not.toHaveProperty("stream_options");
  });
});

describe("parseChatChunk", () => {
  it("reads delta content, finish reason and usage", () => {
    expect(parseChatChunk('{"choices":[{"delta":{"content":"你好"},"finish_reason":null}]}')).toEqual({
      text: "你好",
      finishReason: null,
      usage: null,
    });
    expect(parseChatChunk('{"choices":[{"delta":{},"finish_reason":"length"}]}').finishReason).toBe("length");
    expect(parseChatChunk('{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}').usage).toEqual({
      prompt_tokens: 3,
      completion_tokens: 4,
      total_tokens: 7,
    });
    expect(parseChatChunk('{"choices":[{"delta":{"content":null,"reasoning_content":"hm"}}]}').text).toBe("");
  });

  it("rejects malformed JSON, wrong shapes and in-stream provider errors", () => {
    expect(() => parseChatChunk('{"choices":[{"delta":')).toThrow(/not JSON/);
    expect(() => parseChatChunk('{"choices":"nope"}')).toThrow(/unexpected shape/);
    expect(() => parseChatChunk('{"error":{"message":"overloaded"}}')).toThrow(/overloaded/);
  });
});

describe("secret hygiene helpers", () => {
  it("describeEndpoint drops userinfo and query", () => {
    expect(describeEndpoint("https://user:pw@api.x.test/v1/chat/completions?key=abc")).toBe(
      "https://api.x.test/v1/chat/completions",
    );
  });

  it("redactSecrets masks the key and key-shaped strings", () => {
    const out = redactSecrets("bad key sk-live-123456789 and my-secret-value", ["my-secret-value"]);
    expect(out).not.toContain("123456789");
    expect(out).not.toContain("my-secret-value");
  });
});
