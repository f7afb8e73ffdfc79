// A small MCP server (Streamable HTTP, stateless) built with the official SDK, for the MCP
// adapter's tests: a retrieval tool and a listing tool over the fake provider's corpus. Run as a
// real process over loopback:
//   node --import tsx e2e/support/fake-mcp-server.ts --port 0 [--token secret] [--no-list]
// prints `listening http://127.0.0.1:<port>/mcp`.
// Queries containing "slow" answer after 5 s, "explode" returns a tool error, "garbage" returns
// text that is not JSON, "flood" returns a 3 MB result.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { FAKE_DOCS, FAKE_SOURCES } from "./fake-provider-server";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const token = arg("--token");
const withList = !process.argv.includes("--no-list");
let calls = 0;

function buildServer(): McpServer {
  const server = new McpServer({ name: "fake-knowledge", version: "1.0.0" });
  server.registerTool(
    "search_knowledge",
    {
      description: "Search the fake corpus (provider protocol v1 request in, {results} out).",
      inputSchema: {
        query: z.string(),
        topK: z.number().int().min(1).max(8),
        knowledgeBaseIds: z.array(z.string()),
        targets: z.array(z.object({ id: z.string(), target_type: z.string(), document_id: z.string().nullable().optional() }).passthrough()).optional(),
      },
    },
    async ({ query, topK, knowledgeBaseIds, targets }) => {
      calls++;
      if (query.includes("slow")) await new Promise((r) => setTimeout(r, 5000));
      if (query.includes("explode")) return { isError: true, content: [{ type: "text" as const, text: "index offline" }] };
      if (query.includes("garbage")) return { content: [{ type: "text" as const, text: "not json at all" }] };
      if (query.includes("flood")) return { content: [{ type: "text" as const, text: JSON.stringify({ results: [{ id: "f", content: "x".repeat(3 * 1024 * 1024) }] }) }] };
      const q = new Set(query.toLowerCase().match(/[a-z0-9]+/g) ?? []);
      const docs = FAKE_DOCS.filter((d) => (knowledgeBaseIds.length === 0 || knowledgeBaseIds.includes(d.source)))
        .filter((d) => !targets?.length || targets.some((t) => t.id === d.source && (t.target_type !== "document" || t.document_id === d.id)))
        .filter((d) => (d.text.toLowerCase().match(/[a-z0-9]+/g) ?? []).some((w) => q.has(w)))
        .slice(0, topK);
      const results = docs.map((d, i) => ({
        id: `mcp-${d.id}`,
        content: d.text,
        score: 0.9 - i * 0.1,
        source: { id: d.id, title: d.name, locator: `${d.source}#${d.id}` },
        metadata: { via: "mcp" },
      }));
      return { structuredContent: { results }, content: [{ type: "text" as const, text: JSON.stringify({ results }) }] };
    },
  );
  if (withList) {
    server.registerTool(
      "list_documents",
      {
        description: "List sources (no source_id) or a source's documents.",
        inputSchema: { source_id: z.string().nullable(), parent_id: z.string().nullable(), cursor: z.string().nullable(), limit: z.number().int() },
      },
      async ({ source_id, limit }) => {
        const items =
          source_id === null
            ? FAKE_SOURCES.map((s) => ({ id: s.id, name: s.name, type: "knowledge_base" }))
            : FAKE_DOCS.filter((d) => d.source === source_id).map((d) => ({ id: d.id, name: d.name, type: "document", source_id }));
        const page = { items: items.slice(0, limit), next_cursor: null };
        return { structuredContent: page, content: [{ type: "text" as const, text: JSON.stringify(page) }] };
      },
    );
  }
  return server;
}

const httpServer = http.createServer(async (req, res) => {
  if (req.url === "/__calls") return res.end(JSON.stringify({ calls }));
  if (!req.url?.startsWith("/mcp")) return res.writeHead(404).end();
  if (token && req.headers.authorization !== `Bearer ${token}`) return res.writeHead(401).end();
  if (req.method !== "POST") return res.writeHead(405).end();
  // Stateless: one server and transport per request (the SDK's documented pattern).
  const server = buildServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
});
httpServer.listen(Number(arg("--port") ?? 0), "127.0.0.1", () => {
  console.log(`listening http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`);
});
