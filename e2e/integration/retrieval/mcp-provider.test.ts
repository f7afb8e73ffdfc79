import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retrieve } from "@/lib/retrieval/core";
import { createMcpProvider } from "@/lib/retrieval/providers/mcp-provider";
import { validateProvider } from "@/lib/retrieval/providers/protocol";
import { createConfiguredProvider, parseExternalProviders } from "@/lib/retrieval/runtime";

// The MCP adapter against a real MCP server process (built with the same official SDK) over
// loopback Streamable HTTP: retrieval tool → protocol v1 records → the core's normalization,
// listing tool, health, timeout, cancellation, tool errors, size cap and address rules.
function startServer(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", "e2e/support/fake-mcp-server.ts", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c) => {
      out += c;
      const m = /listening (\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.once("exit", (code) => reject(new Error(`MCP server exited with ${code}`)));
  });
}

const ctx = (signal = new AbortController().signal) => ({ ownerId: "o", sessionId: "s", turnId: "t", traceId: "trace", signal });
const req = (query: string) => ({ query, topK: 3, knowledgeBaseIds: ["handbook"], filters: {} });

describe("MCP adapter", () => {
  let server: { url: string; child: ChildProcess };
  let bare: { url: string; child: ChildProcess };
  const opts = () => ({ key: "mcp-docs", label: "MCP docs", url: server.url, token: "mcp-secret", tool: "search_knowledge", listTool: "list_documents", allowLoopback: true, timeoutMs: 1500 });

  beforeAll(async () => {
    [server, bare] = await Promise.all([startServer(["--token", "mcp-secret"]), startServer(["--no-list"])]);
  });
  afterAll(() => {
    server?.child.kill();
    bare?.child.kill();
  });

  it("is configured from EXTERNAL_PROVIDERS and refuses loopback without the test-only allowance", () => {
    const [cfg] = parseExternalProviders(JSON.stringify([{ type: "mcp", key: "mcp-docs", label: "MCP", url: server.url, tool: "search_knowledge" }]));
    expect(() => createConfiguredProvider(cfg!, { PROVIDER_TIMEOUT_MS: 1000, ALLOW_LOOPBACK_PROVIDERS: false })).toThrow(/refused/);
    const p = createConfiguredProvider(cfg!, { PROVIDER_TIMEOUT_MS: 1000, ALLOW_LOOPBACK_PROVIDERS: true });
    expect(validateProvider(p).capabilities).toMatchObject({ list_documents: false });
    expect(() => parseExternalProviders(JSON.stringify([{ type: "mcp", key: "x", label: "X", url: server.url }]))).toThrow(/tool/);
    for (const url of ["http://10.0.0.1/mcp", "http://169.254.169.254/mcp", "http://[::ffff:10.0.0.1]:1/mcp", "file:///etc/passwd", "http://u:p@example.com/mcp"]) {
      expect(() => createMcpProvider({ ...opts(), url }), url).toThrow(/refused/);
    }
  });

  it("calls the retrieval tool with the standard request and targets; the core normalizes its records", async () => {
    const p = createMcpProvider(opts());
    const description = validateProvider(p);
    expect(description.capabilities.list_documents).toBe(true);
    const res = await retrieve({ query: "release approvers rollback", topK: 3, knowledgeBaseIds: [] }, { ...ctx(), readableKnowledgeIds: new Set() }, {
      externalProviders: [{ provider: p, description, knowledgeBaseIds: ["handbook"], targets: [{ id: "handbook", target_type: "document", document_id: "doc-release" }] }],
    });
    expect(res.sources).toEqual([
      { source_type: "knowledge-base", status: "unavailable", count: 0 },
      { source_type: "mcp-docs", status: "ok", count: 1 },
    ]);
    expect(res.hits[0]).toMatchObject({ id: "mcp-docs:mcp-doc-release", sourceType: "mcp-docs", sourceId: "doc-release", sourceName: "Release checklist", metadata: { via: "mcp", locator: "handbook#doc-release" } });
    await p.close?.();
  });

  it("lists documents through the listing tool and reports health", async () => {
    const p = createMcpProvider(opts());
    expect(await p.listDocuments!({ sourceId: null, parentId: null, cursor: null, limit: 10 }, ctx())).toMatchObject({ items: [{ id: "handbook" }, { id: "runbooks" }] });
    expect(await p.health!({ signal: new AbortController().signal })).toEqual({ status: "ready" });
    const noList = createMcpProvider({ ...opts(), url: bare.url, token: undefined });
    expect((await noList.health!({ signal: new AbortController().signal })).status).toBe("degraded");
    const wrongToken = createMcpProvider({ ...opts(), token: "nope" });
    expect((await wrongToken.health!({ signal: new AbortController().signal })).status).toBe("unavailable");
    await Promise.all([p.close?.(), noList.close?.(), wrongToken.close?.()]);
  });

  it("turns tool errors, non-JSON text, oversized answers, timeouts and cancellation into that source's status", async () => {
    const p = createMcpProvider({ ...opts(), maxResponseBytes: 1024 * 1024 });
    const description = validateProvider(p);
    const run = async (query: string, signal?: AbortSignal) =>
      (await retrieve({ query, topK: 3, knowledgeBaseIds: [] }, { ...ctx(signal), readableKnowledgeIds: new Set() }, { externalProviders: [{ provider: p, description }], timeoutMs: 1000 })).sources[1]!.status;
    expect(await run("explode release")).toBe("error");
    expect(await run("garbage release")).toBe("error");
    expect(await run("flood release")).toBe("error");
    const t0 = Date.now();
    expect(await run("slow release")).toBe("timeout");
    expect(Date.now() - t0).toBeLessThan(2000);
    // The session survives the failures above.
    expect(await run("release approvers")).toBe("ok");
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("client left")), 200);
    await expect(p.retrieve(req("slow release"), ctx(ac.signal))).rejects.toThrow();
    await p.close?.();
  });
});
