import ipaddr from "ipaddr.js";
import { z } from "zod";

// Configuration is read and validated once; every other module asks getEnv().
// Each variable is documented in .env.example.
const boolish = z
  .enum(["true", "false", "1", "0", "yes", "no", ""])
  .transform((v) => v === "true" || v === "1" || v === "yes");

const intIn = (min: number, max: number, dflt: number) =>
  z.coerce.number().int().min(min).max(max).default(dflt);

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  HOST: z.string().default("127.0.0.1"),
  PORT: intIn(1, 65535, 3000),
  AUTH_MODE: z.enum(["local", "password"]).optional(),
  // Behind https (a TLS-terminating proxy) session cookies get the Secure flag.
  PUBLIC_ORIGIN: z.string().url().optional(),
  // Extra host names (comma-separated) this server answers to, besides localhost, the loopback
  // addresses, HOST and PUBLIC_ORIGIN's host. Any other Host header is refused (DNS rebinding).
  ALLOWED_HOSTS: z.string().default(""),
  // Addresses or CIDR ranges (comma-separated) of reverse proxies whose X-Forwarded-For is
  // believed. Empty: the client is the connection's peer, forwarded headers are ignored.
  TRUSTED_PROXIES: z.string().default(""),
  DATABASE_URL: z.string().url().optional(),
  // PostgreSQL server only: connections the chat's raw-SQL pool may open (Prisma's pool gets
  // this plus INGEST_CONCURRENCY). See lib/db/client.ts for why small.
  DATABASE_POOL_MAX: intIn(1, 100, 5),
  DATA_DIR: z.string().default("./data"),
  // on = PGlite runs in a worker thread (its own core); off = in the server's main thread.
  PGLITE_WORKER: z.enum(["on", "off"]).default("on"),
  SEED_SAMPLE: boolish.default(true),

  MAX_FILE_BYTES: intIn(1, 2 ** 31, 50 * 1024 * 1024),
  MAX_FILES_PER_REQUEST: intIn(1, 100, 20),
  MAX_KB_BYTES: intIn(1, 2 ** 40, 1024 * 1024 * 1024),
  MAX_PDF_PAGES: intIn(1, 100000, 2000),
  INGEST_CONCURRENCY: intIn(1, 16, 2),
  // Limits of one file's processing (issue 16): a time budget covering parsing AND indexing, the
  // text and passages it may expand to, the parse thread's heap, and the PDF limits.
  INGEST_TIMEOUT_MS: intIn(1000, 3_600_000, 300_000),
  MAX_EXTRACTED_CHARS: intIn(1000, 500_000_000, 20_000_000),
  MAX_CHUNKS_PER_FILE: intIn(1, 1_000_000, 50_000),
  PARSE_MEMORY_MB: intIn(64, 16384, 1024),
  PDF_MAX_INFLATED_MB: intIn(1, 16384, 256),
  PDF_MAX_TEXT_ITEMS_PER_PAGE: intIn(100, 10_000_000, 100_000),
  PDF_MAX_PAGE_MS: intIn(100, 600_000, 15_000),
  // Target time of one indexing transaction (and of one statement adding a ready file to the grep
  // index, lib/retrieval/grep-index.ts); the connection is released between batches.
  INGEST_BATCH_MS: intIn(5, 10_000, 60),
  CHUNK_TARGET_CHARS: intIn(100, 8000, 650),
  CHUNK_OVERLAP_CHARS: intIn(0, 2000, 100),
  // Knowledge graph: model extractor requests in flight per file (issue 19).
  GRAPH_MODEL_CONCURRENCY: intIn(1, 16, 2),

  EMBEDDING_MODEL: z.string().optional(),
  EMBEDDING_BASE_URL: z.string().url().optional(),
  EMBEDDING_API_KEY: z.string().optional(),
  EMBEDDING_DIMENSIONS: z.coerce.number().int().min(1).max(16000).optional(),
  AI_CHAT_MODEL: z.string().optional(),
  AI_CHAT_BASE_URL: z.string().url().optional(),
  AI_CHAT_API_KEY: z.string().optional(),
  RERANK_MODEL: z.string().optional(),
  RERANK_BASE_URL: z.string().url().optional(),
  RERANK_API_KEY: z.string().optional(),
  MODEL_TIMEOUT_MS: intIn(1000, 600000, 60000),

  RETRIEVAL_MIN_SCORE: z.coerce.number().min(0).max(1).default(0.5),
  PROMPT_MAX_CHUNKS: intIn(1, 20, 3),
  PROMPT_CHUNK_CHARS: intIn(100, 10000, 650),
  CHAT_MAX_TOKENS: intIn(16, 32768, 1024),
  CHAT_TEMPERATURE: z.coerce.number().min(0).max(2).default(0.2),
  // JSON array of external providers (http or mcp; fields in docs/external-sources.md):
  // [{"type":"http","key":"wiki","label":"Wiki","url":"…","listUrl":"…","tokenEnv":"WIKI_TOKEN"}]
  EXTERNAL_PROVIDERS: z.string().optional(),
  PROVIDER_TIMEOUT_MS: intIn(100, 120000, 8000),
  // Test builds only: allow provider adapters to reach loopback (the local test servers).
  ALLOW_LOOPBACK_PROVIDERS: boolish.default(false),
  ENABLE_FLOW_GALLERY: boolish.optional(),

  // Where uploaded originals live (lib/ingestion/storage.ts): local = DATA_DIR/files (default),
  // s3 = an S3-compatible bucket shared by every instance (several instances on one PostgreSQL).
  STORAGE: z.enum(["local", "s3"]).default("local"),
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().default("us-east-1"),
  S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "must be an S3 bucket name").optional(),
  // Key prefix of the originals in the bucket; the orphan sweep only looks under it.
  S3_PREFIX: z.string().regex(/^([A-Za-z0-9_-]+\/)*$/, "must be empty or end with / (letters, digits, _ and -)").default("originals/"),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  // Path-style URLs (http://host/bucket/key): what MinIO, Ceph and most S3-compatible servers need.
  S3_FORCE_PATH_STYLE: boolish.default(true),
  // A stored original without its row is deleted by the start-up sweep once it is this old: an
  // upload writes the object first and its row right after, possibly on another instance.
  STORAGE_ORPHAN_GRACE_S: intIn(0, 30 * 24 * 3600, 3600),
  // SIGTERM: how long running chat streams may go on before they are cut (saved as aborted).
  SHUTDOWN_GRACE_MS: intIn(0, 600000, 10000),
  // Agent answer mode (issue 17): whether the chat model takes OpenAI `tools`/`tool_calls`, and
  // the loop's bounds.
  AI_CHAT_TOOLS: boolish.default(false),
  AGENT_MAX_STEPS: intIn(1, 20, 6),
  AGENT_TOOL_TIMEOUT_MS: intIn(100, 120000, 15000),
  AGENT_TURN_BUDGET_MS: intIn(1000, 600000, 90000),
  // knowledge_search in agent mode reranks its candidates with the chat model when no rerank
  // model is configured (seed 003). The plain chat and MCP never do.
  AGENT_CHAT_RERANK: boolish.default(true),
});

export type Env = z.infer<typeof envSchema> & { AUTH_MODE: "local" | "password" };

let cached: Env | undefined;

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

export function getEnv(): Env {
  if (cached) return cached;
  // A `KEY=` line (empty value) means "not set", as in most .env tooling.
  const present = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema
    .superRefine((v, ctx) => {
      if (v.STORAGE !== "s3") return;
      for (const k of ["S3_BUCKET", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"] as const) {
        if (!v[k]) ctx.addIssue({ code: "custom", path: [k], message: "is required when STORAGE=s3" });
      }
    })
    .safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const authMode = parsed.data.AUTH_MODE ?? (isLoopbackHost(parsed.data.HOST) ? "local" : "password");
  cached = { ...parsed.data, AUTH_MODE: authMode };
  return cached;
}

/** Tests change process.env between cases; this forgets the cached copy. */
export function resetEnvForTests(): void {
  cached = undefined;
}

function isAddressOrRange(item: string): boolean {
  try {
    if (item.includes("/")) ipaddr.parseCIDR(item);
    else ipaddr.parse(item.replace(/^\[|\]$/g, ""));
    return true;
  } catch {
    return false;
  }
}

/** Refuses an unsafe combination before the server listens (called from instrumentation). */
export function assertSafeToServe(env: Env): void {
  for (const item of env.ALLOWED_HOSTS.split(",").map((s) => s.trim()).filter(Boolean)) {
    if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+)(:\d{1,5})?$/.test(item)) {
      throw new Error(`ALLOWED_HOSTS: "${item}" is not a host name (comma-separated names, e.g. kb.example.com,kb-01.lan).`);
    }
  }
  for (const item of env.TRUSTED_PROXIES.split(",").map((s) => s.trim()).filter(Boolean)) {
    if (!isAddressOrRange(item)) {
      throw new Error(`TRUSTED_PROXIES: "${item}" is not an IP address or CIDR range (comma-separated, e.g. 10.0.0.1,10.1.0.0/16).`);
    }
  }
  if (env.AUTH_MODE === "local" && !isLoopbackHost(env.HOST)) {
    throw new Error(
      `AUTH_MODE=local signs everyone in as the local owner, so it may only bind to a loopback address; HOST=${env.HOST} is not one. Set AUTH_MODE=password or HOST=127.0.0.1.`,
    );
  }
}
