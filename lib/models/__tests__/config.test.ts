import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/env";
import { capabilities, getModelConfig } from "@/lib/models/config";

const KEYS = [
  "AI_CHAT_MODEL", "AI_CHAT_BASE_URL", "AI_CHAT_API_KEY",
  "EMBEDDING_MODEL", "EMBEDDING_BASE_URL", "EMBEDDING_API_KEY", "EMBEDDING_DIMENSIONS",
  "RERANK_MODEL", "RERANK_BASE_URL", "RERANK_API_KEY",
  "CHAT_TEMPERATURE", "CHAT_MAX_TOKENS", "MODEL_TIMEOUT_MS",
];
let saved: Record<string, string | undefined>;

beforeEach(() => {
  saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
  for (const k of KEYS) delete process.env[k];
  resetEnvForTests();
});
afterEach(() => {
  for (const k of KEYS) if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k];
  resetEnvForTests();
});

describe("getModelConfig", () => {
  it("reports nothing when nothing is configured", () => {
    expect(capabilities()).toEqual({ chat: false, embedding: false, rerank: false });
    const c = getModelConfig();
    expect([c.chat, c.embedding, c.rerank]).toEqual([null, null, null]);
  });

  it("needs both model and base URL for each capability", () => {
    process.env.AI_CHAT_MODEL = "qwen-plus";
    process.env.EMBEDDING_BASE_URL = "http://127.0.0.1:9/v1";
    process.env.RERANK_MODEL = "  ";
    process.env.RERANK_BASE_URL = "http://127.0.0.1:9/v1";
    expect(capabilities()).toEqual({ chat: false, embedding: false, rerank: false });
  });

  it("builds full configs from the environment", () => {
    Object.assign(process.env, {
      AI_CHAT_MODEL: "qwen3.6-plus", AI_CHAT_BASE_URL: "http://127.0.0.1:9/v1", AI_CHAT_API_KEY: "sk-chat",
      CHAT_TEMPERATURE: "0.3", CHAT_MAX_TOKENS: "512", MODEL_TIMEOUT_MS: "5000",
      EMBEDDING_MODEL: "text-embedding-v4", EMBEDDING_BASE_URL: "http://127.0.0.1:9/v1", EMBEDDING_DIMENSIONS: "64",
      EMBEDDING_API_KEY: "",
      RERANK_MODEL: "gte-rerank", RERANK_BASE_URL: "http://127.0.0.1:9/v1",
    });
    const c = getModelConfig();
    expect(c.capabilities()).toEqual({ chat: true, embedding: true, rerank: true });
    expect(c.chat).toEqual({
      model: "qwen3.6-plus", baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-chat",
      temperature: 0.3, maxTokens: 512, timeoutMs: 5000,
    });
    expect(c.embedding).toMatchObject({ model: "text-embedding-v4", dimensions: 64, apiKey: undefined });
    expect(c.rerank).toMatchObject({ model: "gte-rerank", apiKey: undefined, timeoutMs: 5000 });
  });
});
