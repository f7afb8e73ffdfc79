// Knowledge retrieval provider protocol v1 (SPEC §8, seed 000). Pure types + validation.

export const KNOWLEDGE_PROVIDER_PROTOCOL_VERSION = 1 as const;
export const PROVIDER_KEY_RE = /^[a-z0-9-]+$/;

export interface ProviderCapabilities {
  filters: boolean;
  scores: boolean;
  citations: boolean;
  list_documents?: boolean;
}

export interface ProviderDescription {
  protocolVersion: 1;
  key: string;
  label: string;
  capabilities: ProviderCapabilities;
}

/** What a model may propose (validated and bounded by the runtime before a provider sees it). */
export interface ProviderRequest {
  query: string;
  topK: number;
  knowledgeBaseIds: string[];
  filters: Record<string, unknown>;
}

/** Injected by the server only. */
export interface ProviderContext {
  ownerId: string;
  sessionId: string;
  turnId: string;
  traceId: string;
  signal: AbortSignal;
}

export type ProviderHealth = "ready" | "unconfigured" | "degraded" | "unavailable";

/** A provider's raw record before normalization: only id and content are required. */
export interface ProviderRecord {
  id: string | number;
  content: string;
  score?: number;
  source?: { id?: string; title?: string; uri?: string; mimeType?: string; locator?: string };
  metadata?: Record<string, unknown>;
}

export type ProviderResponse = ProviderRecord[] | { results: ProviderRecord[] };

export interface KnowledgeProvider {
  describe(): ProviderDescription;
  retrieve(request: ProviderRequest, context: ProviderContext): Promise<ProviderResponse | unknown>;
  health?(opts: { signal: AbortSignal }): Promise<{ status: ProviderHealth; message?: string }>;
  close?(): Promise<void> | void;
}

export class ProviderValidationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProviderValidationError";
  }
}

/**
 * Validates a provider at registration (start-up), so an incompatible provider fails the boot
 * with a clear message instead of failing during a chat. Returns the description.
 */
export function validateProvider(provider: unknown, where = "provider"): ProviderDescription {
  if (!provider || typeof provider !== "object") throw new ProviderValidationError(`${where}: not an object`);
  const p = provider as Partial<KnowledgeProvider>;
  if (typeof p.describe !== "function") throw new ProviderValidationError(`${where}: describe() is missing`);
  if (typeof p.retrieve !== "function") throw new ProviderValidationError(`${where}: retrieve() is missing`);
  if (p.health !== undefined && typeof p.health !== "function") throw new ProviderValidationError(`${where}: health is not a function`);
  if (p.close !== undefined && typeof p.close !== "function") throw new ProviderValidationError(`${where}: close is not a function`);
  let d: unknown;
  try {
    d = p.describe();
  } catch (e) {
    throw new ProviderValidationError(`${where}: describe() threw: ${(e as Error)?.message ?? e}`);
  }
  if (!d || typeof d !== "object") throw new ProviderValidationError(`${where}: describe() must return an object`);
  const desc = d as Record<string, unknown>;
  if (desc.protocolVersion !== KNOWLEDGE_PROVIDER_PROTOCOL_VERSION) {
    throw new ProviderValidationError(
      `${where}: protocolVersion ${JSON.stringify(desc.protocolVersion)} is not supported (this app speaks protocol ${KNOWLEDGE_PROVIDER_PROTOCOL_VERSION})`,
    );
  }
  if (typeof desc.key !== "string" || !PROVIDER_KEY_RE.test(desc.key) || desc.key.length > 64) {
    throw new ProviderValidationError(`${where}: key ${JSON.stringify(desc.key)} must match /^[a-z0-9-]+$/ (at most 64 characters)`);
  }
  if (typeof desc.label !== "string" || !desc.label.trim()) {
    throw new ProviderValidationError(`${where} "${desc.key}": label must be a non-empty string`);
  }
  const caps = desc.capabilities;
  if (!caps || typeof caps !== "object" || Array.isArray(caps)) {
    throw new ProviderValidationError(`${where} "${desc.key}": capabilities must be an object`);
  }
  const c = caps as Record<string, unknown>;
  for (const k of ["filters", "scores", "citations"] as const) {
    if (typeof c[k] !== "boolean") throw new ProviderValidationError(`${where} "${desc.key}": capabilities.${k} must be a boolean`);
  }
  if (c.list_documents !== undefined && typeof c.list_documents !== "boolean") {
    throw new ProviderValidationError(`${where} "${desc.key}": capabilities.list_documents must be a boolean`);
  }
  return {
    protocolVersion: 1,
    key: desc.key,
    label: desc.label.slice(0, 200),
    capabilities: {
      filters: c.filters as boolean,
      scores: c.scores as boolean,
      citations: c.citations as boolean,
      list_documents: (c.list_documents as boolean | undefined) ?? false,
    },
  };
}
