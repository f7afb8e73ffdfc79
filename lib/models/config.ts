// Which models are configured (SPEC §10). A capability is present only when its model name and
// base URL are both set; nothing is faked — the assistant picks the extractive engine and
// retrieval skips vectors or rerank based on these flags.
import { getEnv, type Env } from "@/lib/env";

export interface ChatModelConfig {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  temperature: number;
  maxTokens: number;
  timeoutMs: number;
}

export interface EmbeddingModelConfig {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  dimensions: number | undefined;
  timeoutMs: number;
}

export interface RerankModelConfig {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
}

export interface ModelCapabilities {
  chat: boolean;
  embedding: boolean;
  rerank: boolean;
}

export interface ModelConfig {
  chat: ChatModelConfig | null;
  embedding: EmbeddingModelConfig | null;
  rerank: RerankModelConfig | null;
  capabilities(): ModelCapabilities;
}

/** Blank values (a `KEY=` line in .env) count as unset. */
function present(v: string | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}

export function getModelConfig(env: Env = getEnv()): ModelConfig {
  const timeoutMs = env.MODEL_TIMEOUT_MS;
  const endpoint = (model?: string, baseUrl?: string, apiKey?: string) => {
    const m = present(model);
    const u = present(baseUrl);
    return m && u ? { model: m, baseUrl: u, apiKey: present(apiKey), timeoutMs } : null;
  };
  const chatBase = endpoint(env.AI_CHAT_MODEL, env.AI_CHAT_BASE_URL, env.AI_CHAT_API_KEY);
  const embeddingBase = endpoint(env.EMBEDDING_MODEL, env.EMBEDDING_BASE_URL, env.EMBEDDING_API_KEY);
  const config: ModelConfig = {
    chat: chatBase && { ...chatBase, temperature: env.CHAT_TEMPERATURE, maxTokens: env.CHAT_MAX_TOKENS },
    embedding: embeddingBase && { ...embeddingBase, dimensions: env.EMBEDDING_DIMENSIONS },
    rerank: endpoint(env.RERANK_MODEL, env.RERANK_BASE_URL, env.RERANK_API_KEY),
    capabilities: () => ({ chat: !!config.chat, embedding: !!config.embedding, rerank: !!config.rerank }),
  };
  return config;
}

export function capabilities(env?: Env): ModelCapabilities {
  return getModelConfig(env).capabilities();
}
