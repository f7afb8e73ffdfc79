import "server-only";
// MCP adapter (SPEC §8): an external provider reached over MCP (Streamable HTTP) with the
// official SDK client. retrieve() calls the configured retrieval tool with the standard request
// as its arguments and maps the tool's structured output (or its JSON text) to protocol v1
// records; the core then normalizes them like any other provider's. Listing calls a listing
// tool when one is configured. Outbound rules are the HTTP adapter's (safe-fetch.ts).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { checkPublicHttpUri, UnsafeTargetError, type LookupFn } from "../uri-safety";
import { ProviderHttpError } from "./http-provider";
import type { KnowledgeProvider, ListingRequest, ProviderContext, ProviderDescription, ProviderRequest } from "./protocol";
import { createSafeFetch } from "./safe-fetch";

export interface McpProviderOptions {
  key: string;
  label: string;
  /** The MCP endpoint (Streamable HTTP). */
  url: string;
  /** Sent as `Authorization: Bearer …`; read from the environment by the caller. */
  token?: string;
  /** The tool that answers the standard request. */
  tool: string;
  /** A listing tool ({source_id, parent_id, cursor, limit} → {items, next_cursor}); set = list_documents. */
  listTool?: string;
  citations?: boolean;
  scores?: boolean;
  timeoutMs?: number;
  maxResponseBytes?: number;
  allowLoopback?: boolean;
  lookup?: LookupFn;
}

interface ToolResult {
  isError?: boolean;
  structuredContent?: unknown;
  content?: Array<{ type: string; text?: string }>;
}

/** The tool's answer as data: structured output first, else the first text part parsed as JSON. */
export function toolPayload(result: ToolResult): unknown {
  if (result.isError) {
    const text = result.content?.find((c) => c.type === "text")?.text ?? "";
    throw new ProviderHttpError("TOOL_ERROR", `MCP tool failed${text ? `: ${text.slice(0, 200)}` : ""}`);
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  const text = result.content?.find((c) => c.type === "text")?.text;
  if (text === undefined) throw new ProviderHttpError("BAD_JSON", "MCP tool returned neither structured content nor text");
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderHttpError("BAD_JSON", "MCP tool returned text that is not JSON");
  }
}

export function createMcpProvider(opts: McpProviderOptions): KnowledgeProvider {
  const check = checkPublicHttpUri(opts.url, { allowLoopback: opts.allowLoopback });
  if (!check.ok) throw new UnsafeTargetError(`Provider "${opts.key}": URL refused (${check.reason})`);
  const endpoint = check.url;
  const timeoutMs = opts.timeoutMs ?? 8000;
  const fetch = createSafeFetch({ allowLoopback: opts.allowLoopback, lookup: opts.lookup, maxResponseBytes: opts.maxResponseBytes ?? 2 * 1024 * 1024 });
  const description: ProviderDescription = {
    protocolVersion: 1,
    key: opts.key,
    label: opts.label,
    capabilities: { filters: false, scores: opts.scores ?? true, citations: opts.citations ?? true, list_documents: Boolean(opts.listTool) },
  };

  // One session, opened on first use and opened again after a failure (the server may restart).
  let connecting: Promise<Client> | null = null;
  // The SDK reports a broken response stream (e.g. our size cap cutting it) through onerror and
  // leaves the request waiting; those calls fail now instead of running into their timeout.
  const pending = new Set<(e: Error) => void>();
  const connect = (signal: AbortSignal): Promise<Client> => {
    connecting ??= (async () => {
      const client = new Client({ name: "knowledge-assistant", version: "1.0.0" });
      client.onerror = (e) => {
        if (!/response larger than|RESPONSE_TOO_LARGE|REDIRECT_REFUSED/.test(`${e?.message}`)) return;
        const err = new ProviderHttpError("RESPONSE_TOO_LARGE", e.message);
        for (const reject of pending) reject(err);
      };
      const transport = new StreamableHTTPClientTransport(endpoint, {
        fetch,
        requestInit: opts.token ? { headers: { authorization: `Bearer ${opts.token}` } } : undefined,
        // Our fetch refuses every redirect; the token never follows one.
        redirectPolicy: "same-origin",
      });
      await client.connect(transport, { signal, timeout: timeoutMs });
      return client;
    })();
    connecting.catch(() => (connecting = null));
    return connecting;
  };
  const call = async (name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown> => {
    const client = await connect(signal);
    let reject: ((e: Error) => void) | undefined;
    try {
      const result = (await new Promise<unknown>((resolve, fail) => {
        reject = fail;
        pending.add(fail);
        client.callTool({ name, arguments: args }, undefined, { signal, timeout: timeoutMs }).then(resolve, fail);
      })) as ToolResult;
      return toolPayload(result);
    } catch (e) {
      // A broken session is dropped; the next call opens a new one.
      if (!(e instanceof ProviderHttpError)) {
        connecting = null;
        void client.close().catch(() => undefined);
      }
      throw e;
    } finally {
      if (reject) pending.delete(reject);
    }
  };

  const listTool = opts.listTool;
  return {
    describe: () => description,
    async retrieve(request: ProviderRequest, context: ProviderContext) {
      const args: Record<string, unknown> = { query: request.query, topK: request.topK, knowledgeBaseIds: request.knowledgeBaseIds };
      if (request.targets?.length) args.targets = request.targets;
      return call(opts.tool, args, context.signal);
    },
    ...(listTool
      ? {
          async listDocuments(request: ListingRequest, context: ProviderContext) {
            return call(listTool, { source_id: request.sourceId, parent_id: request.parentId, cursor: request.cursor, limit: request.limit }, context.signal);
          },
        }
      : {}),
    async health({ signal }) {
      try {
        const client = await connect(signal);
        const { tools } = await client.listTools(undefined, { signal, timeout: timeoutMs });
        const names = new Set(tools.map((t) => t.name));
        if (!names.has(opts.tool)) return { status: "unconfigured", message: `the server has no tool "${opts.tool}"` };
        if (listTool && !names.has(listTool)) return { status: "degraded", message: `the server has no listing tool "${listTool}"` };
        return { status: "ready" };
      } catch (e) {
        connecting = null;
        return { status: "unavailable", message: (e as Error).message };
      }
    },
    async close() {
      const c = connecting;
      connecting = null;
      if (c) await c.then((client) => client.close()).catch(() => undefined);
    },
  };
}
