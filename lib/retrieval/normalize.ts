// Normalization of provider results (SPEC §8, seed 000). Pure. Every record from every provider
// passes through here before the assistant, a tool or a client sees it.
import { calibrateExternal } from "./calibrate";
import type { ListingItem, ListingPage, ProviderDescription } from "./providers/protocol";
import type { RetrievalHit } from "./types";
import { publicHttpUriOrNull } from "./uri-safety";

export interface NormalizeLimits {
  maxResults: number;
  maxContentChars: number;
  maxIdChars: number;
  maxStringChars: number;
  maxMetadataKeys: number;
  maxMetadataValueChars: number;
}

export const DEFAULT_NORMALIZE_LIMITS: NormalizeLimits = {
  maxResults: 20,
  maxContentChars: 4000,
  maxIdChars: 256,
  maxStringChars: 512,
  maxMetadataKeys: 16,
  maxMetadataValueChars: 256,
};

export class MalformedProviderResponse extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MalformedProviderResponse";
  }
}

// Characters that have no place in retrieved text: C0/C1 controls except \t \n, bidi overrides
// (used to disguise text), zero-width and BOM.
const UNSAFE_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

export function cleanText(s: string, max: number): string {
  const t = s.replace(UNSAFE_CHARS, "").replace(/\r\n?/g, "\n").trim();
  if (t.length <= max) return t;
  // Do not cut a surrogate pair in half.
  let end = max;
  const code = t.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${t.slice(0, end)}…`;
}

function boundedString(v: unknown, max: number): string | null {
  if (typeof v === "string") {
    const s = cleanText(v, max);
    return s ? s : null;
  }
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return null;
}

/** Metadata: at most N keys with safe names; values only bounded primitives; everything else dropped. */
export function normalizeMetadata(raw: unknown, limits: NormalizeLimits = DEFAULT_NORMALIZE_LIMITS) {
  const out: Record<string, string | number | boolean | null> = {};
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return out;
  let n = 0;
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (n >= limits.maxMetadataKeys) break;
    if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(k) || k === "__proto__" || k === "constructor" || k === "prototype") continue;
    if (v === null || typeof v === "boolean") out[k] = v;
    else if (typeof v === "number") {
      if (!Number.isFinite(v)) continue;
      out[k] = v;
    } else if (typeof v === "string") out[k] = cleanText(v, limits.maxMetadataValueChars);
    else continue;
    n++;
  }
  return out;
}

export class ProviderReportedError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "ProviderReportedError";
    this.code = code;
  }
}

/**
 * The wire format of protocol v1 over HTTP (docs/external-sources.md): the answer is this app's
 * envelope `{code: 0, msg, data: {results: [...]}}`; a non-zero code is the provider's own
 * failure. A bare `{results: [...]}` or `[...]` (a third-party service) is accepted as well.
 */
export function unwrapEnvelope(raw: unknown): unknown {
  if (!raw || typeof raw !== "object" || Array.isArray(raw) || !("code" in raw)) return raw;
  const env = raw as { code: unknown; msg?: unknown; data?: unknown };
  if (env.code === 0) return env.data;
  const code = typeof env.code === "string" && /^[A-Z_]{1,64}$/.test(env.code) ? env.code : "PROVIDER_ERROR";
  // The code travels as is (PROVIDER_UNAVAILABLE keeps its meaning: status "unavailable"); the
  // provider's message is not passed on (it could carry anything).
  throw new ProviderReportedError(code, `provider answered ${code}`);
}

/** Pulls the record array out of `[…]`, `{results: […]}` or the envelope around it; anything else is malformed. */
export function extractRecords(raw: unknown): unknown[] {
  const body = unwrapEnvelope(raw);
  if (Array.isArray(body)) return body;
  if (body && typeof body === "object" && Array.isArray((body as { results?: unknown }).results)) {
    return (body as { results: unknown[] }).results;
  }
  throw new MalformedProviderResponse("expected an array or {results: [...]}");
}

const LISTING_TYPES = new Set(["knowledge_base", "folder", "document"]);

/**
 * A provider's listing page → bounded, provider-neutral items. Items without an id or a name
 * are dropped; the cursor is an opaque bounded string. Throws MalformedProviderResponse.
 */
export function normalizeListing(raw: unknown, maxItems: number, limits: NormalizeLimits = DEFAULT_NORMALIZE_LIMITS): ListingPage {
  const body = unwrapEnvelope(raw);
  if (!body || typeof body !== "object" || Array.isArray(body) || !Array.isArray((body as { items?: unknown }).items)) {
    throw new MalformedProviderResponse("expected {items: [...], next_cursor}");
  }
  const { items, next_cursor } = body as { items: unknown[]; next_cursor?: unknown };
  const out: ListingItem[] = [];
  const seen = new Set<string>();
  for (const r of items) {
    if (out.length >= maxItems) break;
    if (!r || typeof r !== "object" || Array.isArray(r)) continue;
    const rec = r as Record<string, unknown>;
    const id = boundedString(rec.id, limits.maxIdChars);
    const name = boundedString(rec.name ?? rec.title, limits.maxStringChars);
    if (!id || !name || seen.has(id)) continue;
    seen.add(id);
    const type = typeof rec.type === "string" && LISTING_TYPES.has(rec.type) ? (rec.type as ListingItem["type"]) : "document";
    out.push({
      id,
      name,
      type,
      source_id: boundedString(rec.source_id, limits.maxIdChars) ?? (type === "knowledge_base" ? id : ""),
      parent_id: boundedString(rec.parent_id, limits.maxIdChars),
      node_id: boundedString(rec.node_id, limits.maxIdChars),
      metadata: normalizeMetadata(rec.metadata, limits),
    });
  }
  const cursor = typeof next_cursor === "string" && next_cursor.length > 0 && next_cursor.length <= 512 ? next_cursor : null;
  return { items: out, next_cursor: cursor };
}

/**
 * Provider response → hits with provenance. Records without an id or content are dropped, empty
 * content is dropped, duplicates by id keep the first, content is truncated, only public http(s)
 * URIs survive (others are dropped: the record keeps source.id + locator), and every hit is
 * marked untrusted. Throws MalformedProviderResponse when the envelope itself is wrong.
 */
export function normalizeProviderResults(
  raw: unknown,
  provider: Pick<ProviderDescription, "key" | "label" | "capabilities">,
  limits: Partial<NormalizeLimits> = {},
): { hits: RetrievalHit[]; dropped: number } {
  const L = { ...DEFAULT_NORMALIZE_LIMITS, ...limits };
  const records = extractRecords(raw);
  const hits: RetrievalHit[] = [];
  const seen = new Set<string>();
  let dropped = 0;
  const usable: { rec: Record<string, unknown>; id: string; content: string }[] = [];
  for (const r of records) {
    if (!r || typeof r !== "object" || Array.isArray(r)) {
      dropped++;
      continue;
    }
    const rec = r as Record<string, unknown>;
    const id = boundedString(rec.id, L.maxIdChars);
    const content = typeof rec.content === "string" ? cleanText(rec.content, L.maxContentChars) : "";
    if (!id || !content || seen.has(id)) {
      dropped++;
      continue;
    }
    seen.add(id);
    usable.push({ rec, id, content });
  }
  const kept = usable.slice(0, L.maxResults);
  dropped += usable.length - kept.length;
  kept.forEach(({ rec, id, content }, rank) => {
    const src = rec.source && typeof rec.source === "object" && !Array.isArray(rec.source) ? (rec.source as Record<string, unknown>) : {};
    const title = boundedString(src.title, L.maxStringChars);
    const sourceId = boundedString(src.id, L.maxIdChars) ?? id;
    const locator = boundedString(src.locator, L.maxStringChars);
    const mimeType = boundedString(src.mimeType, 128);
    const uri = provider.capabilities.citations ? publicHttpUriOrNull(src.uri) : null;
    const metadata = normalizeMetadata(rec.metadata, L);
    if (locator) metadata.locator = locator;
    if (mimeType) metadata.mime_type = mimeType;
    hits.push({
      id: `${provider.key}:${id}`,
      chunkId: null,
      fileId: null,
      fileName: title ?? sourceId,
      knowledgeId: null,
      pageStart: null,
      pageEnd: null,
      headingPath: "",
      content,
      score: calibrateExternal(provider.capabilities.scores ? rec.score : undefined, rank, kept.length),
      sourceType: provider.key,
      sourceId,
      sourceUri: uri,
      sourceName: title ?? provider.label,
      untrusted: true,
      metadata,
    });
  });
  return { hits, dropped };
}
