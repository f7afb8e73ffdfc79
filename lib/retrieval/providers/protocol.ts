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

/**
 * One bound target of a source (seed 002 binding fields, without names): a whole source, a folder
 * or a document. The server builds these from the conversation's bindings, never from a model.
 */
export interface ProviderTarget {
  id: string;
  target_type: "knowledge_base" | "folder" | "document";
  node_id?: string | null;
  document_id?: string | null;
  parent_id?: string | null;
}

/** What a model may propose (validated and bounded by the runtime before a provider sees it). */
export interface ProviderRequest {
  query: string;
  topK: number;
  knowledgeBaseIds: string[];
  filters: Record<string, unknown>;
  /**
   * The bound targets (folder and document bindings narrow the search to them). Absent or empty:
   * everything in knowledgeBaseIds, or all the caller may read when that is empty too.
   */
  targets?: ProviderTarget[];
}

/** Document listing (capability list_documents): one page of one source, provider-side paging. */
export interface ListingRequest {
  /** The provider's source (knowledge base) to list; null lists the sources themselves. */
  sourceId: string | null;
  /** A folder inside the source; null = its top level. */
  parentId: string | null;
  cursor: string | null;
  limit: number;
}

export interface ListingItem {
  id: string;
  name: string;
  type: "knowledge_base" | "folder" | "document";
  /** The source (knowledge base) the item lives in; equals id for a knowledge_base item. */
  source_id: string;
  parent_id: string | null;
  node_id: string | null;
  metadata: Record<string, string | number | boolean | null>;
}

export interface ListingPage {
  items: ListingItem[];
  next_cursor: string | null;
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
  /** Present exactly when capabilities.list_documents is true; the answer is normalized by normalizeListing. */
  listDocuments?(request: ListingRequest, context: ProviderContext): Promise<unknown>;
  /**
   * Resolves a source id to a page a person can open, at open time (seed 002: snapshots keep the
   * provider-interpretable source_uri, never the raw URL). null = nothing to open (plain text).
   */
  resolveSource?(sourceId: string, context: ProviderContext): Promise<string | null>;
  close?(): Promise<void> | void;
}

/** The built-in KB's registry entry: everything of a provider except retrieve(). */
export type BuiltinSource = Omit<KnowledgeProvider, "retrieve">;

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
export function validateProvider(provider: unknown, where = "provider", opts: { builtin?: boolean } = {}): ProviderDescription {
  if (!provider || typeof provider !== "object") throw new ProviderValidationError(`${where}: not an object`);
  const p = provider as Partial<KnowledgeProvider>;
  if (typeof p.describe !== "function") throw new ProviderValidationError(`${where}: describe() is missing`);
  // The built-in KB is searched by the core itself (richer hits: pages, headings, chunk ids);
  // its registry entry describes it, reports health and lists documents.
  if (!opts.builtin && typeof p.retrieve !== "function") throw new ProviderValidationError(`${where}: retrieve() is missing`);
  if (p.health !== undefined && typeof p.health !== "function") throw new ProviderValidationError(`${where}: health is not a function`);
  if (p.close !== undefined && typeof p.close !== "function") throw new ProviderValidationError(`${where}: close is not a function`);
  if (p.listDocuments !== undefined && typeof p.listDocuments !== "function") throw new ProviderValidationError(`${where}: listDocuments is not a function`);
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
  // A capability is a promise the UI acts on (the browse entry): it must be backed by a method.
  if (c.list_documents === true && typeof p.listDocuments !== "function") {
    throw new ProviderValidationError(`${where} "${desc.key}": capabilities.list_documents is true but listDocuments() is missing`);
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
