import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_CHUNKS, seedIndexedFile } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

// The MCP server at /v1/mcp over real HTTP, driven by the official SDK client as an outside agent
// runs it, plus the hostile inputs an endpoint on the network gets.
type App = Awaited<ReturnType<typeof startIntegrationApp>>;

const run = promisify(execFile);
const INSPECTOR = path.resolve("node_modules/@modelcontextprotocol/inspector-cli/build/cli.js");
// inspector-cli 1.0.3 checks `existsSync("../package.json")` against the working directory but
// imports it relative to its own module: from a directory whose parent has no package.json it
// fails with "Cannot find module …/@modelcontextprotocol/package.json". Running it from its own
// build directory satisfies both.
const INSPECTOR_CWD = path.dirname(INSPECTOR);

describe("MCP server", () => {
  let app: App;
  let a: Client;
  let kbA: string;
  let kbA2: string;
  let kbB: string;
  let fileA: string;
  let tokenA: string;
  let tokenB: string;
  let readToken: string;
  let narrowToken: string;

  const connect = async (token: string) => {
    const client = new McpClient({ name: "integration-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.baseUrl}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  };

  const rawPost = (body: string, headers: Record<string, string>) =>
    fetch(`${app.baseUrl}/v1/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body,
    });
  const listBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });

  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "password" });
    a = new Client(app.baseUrl);
    const b = new Client(app.baseUrl);
    await a.signUp({ email: "ma@x.test", password: "password-a" });
    await b.signUp({ email: "mb@x.test", password: "password-b" });
    kbA = (await a.json<{ id: string }>("POST", "/v1/knowledges", { name: "A" })).data.id;
    kbA2 = (await a.json<{ id: string }>("POST", "/v1/knowledges", { name: "A2" })).data.id;
    kbB = (await b.json<{ id: string }>("POST", "/v1/knowledges", { name: "B" })).data.id;
    fileA = await seedIndexedFile(kbA, "policy.pdf", SAMPLE_CHUNKS);
    await seedIndexedFile(kbA2, "other.txt", [{ content: "The warranty of the second KB." }]);
    await seedIndexedFile(kbB, "b.txt", [{ content: "warranty of B" }]);
    tokenA = (await a.json<{ token: string }>("POST", "/v1/api-tokens", { name: "agent" })).data.token;
    tokenB = (await b.json<{ token: string }>("POST", "/v1/api-tokens", { name: "agent" })).data.token;
    readToken = (await a.json<{ token: string; scope: string }>("POST", "/v1/api-tokens", { name: "ro", scope: "read" })).data.token;
    narrowToken = (await a.json<{ token: string }>("POST", "/v1/api-tokens", { name: "narrow", scope: "read", knowledge_ids: [kbA2] })).data.token;
  });
  afterAll(() => app.close());

  it("lists every tool with its JSON schema and description, and calls them with structured results", async () => {
    const client = await connect(tokenA);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["list_knowledge_bases", "knowledge_search", "grep_chunks", "get_document_info", "list_knowledge_chunks", "query_knowledge_graph"]);
    const grep = tools.find((t) => t.name === "grep_chunks")!;
    expect(grep.inputSchema.properties).toHaveProperty("keywords");
    expect(grep.description).toMatch(/literal/);
    expect(grep.outputSchema?.properties).toHaveProperty("documents");

    const g = await client.callTool({ name: "grep_chunks", arguments: { keywords: ["市场规模", "warranty"] } });
    expect(g.isError).toBeFalsy();
    const docs = (g.structuredContent as { documents: Array<{ file_id: string; knowledge_base_id: string }> }).documents;
    expect(docs.map((d) => d.knowledge_base_id).sort()).toEqual([kbA, kbA2].sort());
    expect(JSON.parse((g.content as Array<{ text: string }>)[0]!.text)).toEqual(g.structuredContent);

    const s = await client.callTool({ name: "knowledge_search", arguments: { queries: ["battery warranty months"], knowledge_base_ids: [kbA], top_k: 3 } });
    const hits = (s.structuredContent as { hits: Array<{ file_id: string; text: string; chunk_index: number }> }).hits;
    expect(hits[0]).toMatchObject({ file_id: fileA, chunk_index: 2 });
    const around = await client.callTool({ name: "list_knowledge_chunks", arguments: { file_id: fileA, offset: Math.max(0, hits[0]!.chunk_index - 2), limit: 5 } });
    expect((around.structuredContent as { chunks: unknown[]; total: number }).total).toBe(4);
    await client.close();
  });

  it("refuses missing, wrong and revoked tokens, and a session cookie", async () => {
    const none = await rawPost(listBody, {});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(((await none.json()) as { code: string }).code).toBe("UNAUTHENTICATED");
    expect((await rawPost(listBody, { authorization: "Bearer ka_wrong" })).status).toBe(401);
    expect((await rawPost(listBody, { authorization: "Basic abc" })).status).toBe(401);
    // A signed-in browser's cookie is not enough.
    const cookie = `ka_session=${a.cookie("ka_session")}`;
    expect((await rawPost(listBody, { cookie })).status).toBe(401);
    const t = await a.json<{ id: string; token: string }>("POST", "/v1/api-tokens", { name: "temp" });
    expect((await rawPost(listBody, { authorization: `Bearer ${t.data.token}` })).status).toBe(200);
    await a.json("DELETE", `/v1/api-tokens/${t.data.id}`);
    expect((await rawPost(listBody, { authorization: `Bearer ${t.data.token}` })).status).toBe(401);
    // A page on another site cannot post to it from a browser.
    const cross = await rawPost(listBody, { authorization: `Bearer ${tokenA}`, origin: "https://evil.example", "sec-fetch-site": "cross-site" });
    expect(((await cross.json()) as { code: string }).code).toBe("FORBIDDEN");
  });

  it("answers bad calls with clear tool errors: unknown tool, wrong types, foreign ids", async () => {
    const client = await connect(tokenA);
    const text = (r: Awaited<ReturnType<typeof client.callTool>>) => (r.content as Array<{ text: string }>)[0]!.text;
    const unknown = await client.callTool({ name: "drop_everything", arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(/^TOOL_NOT_FOUND: No tool named "drop_everything"/);
    const wrongType = await client.callTool({ name: "list_knowledge_chunks", arguments: { file_id: 42, limit: "ten" } });
    expect(wrongType.isError).toBe(true);
    expect(text(wrongType)).toMatch(/^INVALID_PARAMS: file_id: .*string.*; limit: .*number/);
    const foreign = await client.callTool({ name: "knowledge_search", arguments: { queries: ["warranty"], knowledge_base_ids: [kbB] } });
    expect(text(foreign)).toMatch(/^KNOWLEDGE_NOT_FOUND/);
    const nul = await client.callTool({ name: "grep_chunks", arguments: { keywords: ["<script>\u0000"] } });
    expect(text(nul)).toMatch(/^INVALID_PARAMS: keywords.0: each keyword must not contain NUL/);
    await client.close();
  });

  it("refuses 1 MB of arguments and malformed JSON before running anything", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "grep_chunks", arguments: { keywords: ["x".repeat(1024 * 1024)] } } });
    const r = await rawPost(big, { authorization: `Bearer ${tokenA}` });
    expect(r.status).toBe(413);
    expect(((await r.json()) as { code: string }).code).toBe("PAYLOAD_TOO_LARGE");
    const bad = await rawPost("{not json", { authorization: `Bearer ${tokenA}` });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const get = await fetch(`${app.baseUrl}/v1/mcp`, { headers: { authorization: `Bearer ${tokenA}`, accept: "text/event-stream" } });
    expect(get.status).toBe(405);
  });

  it("100 parallel calls from one token: bounded, each either answered or rate-limited with a clear message", async () => {
    const client = await connect(tokenB);
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => client.callTool({ name: "grep_chunks", arguments: { keywords: [`warranty`, `k${i}`] } })),
    );
    let ok = 0;
    for (const r of results) {
      if (!r.isError) ok++;
      else expect((r.content as Array<{ text: string }>)[0]!.text).toMatch(/^RATE_LIMITED: Too many tool calls at once for this token \(at most 8 in flight\)/);
    }
    expect(ok).toBeGreaterThanOrEqual(8);
    // The bound frees up: the next call goes through.
    expect((await client.callTool({ name: "list_knowledge_bases", arguments: {} })).isError).toBeFalsy();
    await client.close();
  });

  it("read-scope and KB-narrowed tokens: tools and provider work, only over their KBs, and nothing can be changed", async () => {
    const narrow = await connect(narrowToken);
    const kbs = await narrow.callTool({ name: "list_knowledge_bases", arguments: {} });
    expect((kbs.structuredContent as { knowledge_bases: Array<{ id: string }> }).knowledge_bases.map((k) => k.id)).toEqual([kbA2]);
    const outside = await narrow.callTool({ name: "grep_chunks", arguments: { keywords: ["warranty"], knowledge_base_ids: [kbA] } });
    expect((outside.content as Array<{ text: string }>)[0]!.text).toMatch(/^KNOWLEDGE_NOT_FOUND/);
    const doc = await narrow.callTool({ name: "get_document_info", arguments: { file_ids: [fileA] } });
    expect((doc.structuredContent as { not_found: string[] }).not_found).toEqual([fileA]);
    await narrow.close();

    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
    const provider = await new Client(app.baseUrl).json<{ results: unknown[] }>("POST", "/v1/provider/retrieve", { query: "warranty", knowledgeBaseIds: [kbA, kbA2] }, bearer(narrowToken));
    expect(provider.code).toBe(0);
    expect(provider.data.results).toHaveLength(1);
    const ro = new Client(app.baseUrl);
    expect((await ro.json("POST", "/v1/provider/retrieve", { query: "warranty", knowledgeBaseIds: [kbA] }, bearer(readToken))).code).toBe(0);

    // Every write (and every non-retrieval read) is refused for limited tokens.
    for (const t of [readToken, narrowToken]) {
      const attempts = [
        await ro.json("POST", "/v1/knowledges", { name: "x" }, bearer(t)),
        await ro.json("PATCH", `/v1/knowledges/${kbA}`, { name: "renamed" }, bearer(t)),
        await ro.json("DELETE", `/v1/knowledges/${kbA2}`, undefined, bearer(t)),
        await ro.json("DELETE", `/v1/knowledges/${kbA}/files/${fileA}`, undefined, bearer(t)),
        await ro.json("POST", "/v1/api-tokens", { name: "escalate", scope: "full" }, bearer(t)),
        await ro.json("GET", "/v1/knowledges", undefined, bearer(t)),
      ];
      for (const r of attempts) expect(r.code).toBe("FORBIDDEN");
    }
    const still = await a.json<{ items: Array<{ name: string }> }>("GET", "/v1/knowledges");
    expect(still.data.items.map((k) => k.name)).toEqual(["A", "A2"]);
    // A full token still acts as its user.
    expect((await ro.json("GET", "/v1/knowledges", undefined, bearer(tokenA))).code).toBe(0);
  });

  it("token scopes are validated and listed", async () => {
    expect((await a.json("POST", "/v1/api-tokens", { name: "x", scope: "admin" })).code).toBe("INVALID_PARAMS");
    expect((await a.json("POST", "/v1/api-tokens", { name: "x", knowledge_ids: [kbB] })).code).toBe("KNOWLEDGE_NOT_FOUND");
    const list = await a.json<{ items: Array<{ name: string; scope: string; knowledge_ids: string[] }> }>("GET", "/v1/api-tokens");
    expect(list.data.items.find((t) => t.name === "narrow")).toMatchObject({ scope: "read", knowledge_ids: [kbA2] });
    expect(list.data.items.find((t) => t.name === "agent")).toMatchObject({ scope: "full", knowledge_ids: [] });
  });

  // A third-party MCP client run as its users run it: the MCP Inspector's CLI mode, as a separate
  // process over real HTTP (`mcp-inspector-cli --cli <url> --transport http --header …`).
  it("the MCP Inspector CLI lists the tools and calls grep_chunks and knowledge_search", async () => {
    const inspect = async (...args: string[]) => {
      const { stdout } = await run(process.execPath, [INSPECTOR, "--cli", `${app.baseUrl}/v1/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${readToken}`, ...args], {
        timeout: 30_000,
        cwd: INSPECTOR_CWD,
      });
      return JSON.parse(stdout) as Record<string, unknown>;
    };
    const list = (await inspect("--method", "tools/list")) as { tools: Array<{ name: string }> };
    expect(list.tools.map((t) => t.name)).toContain("grep_chunks");
    const grep = (await inspect("--method", "tools/call", "--tool-name", "grep_chunks", "--tool-arg", 'keywords=["市场规模"]')) as {
      structuredContent: { documents: Array<{ file_name: string; keyword_counts: Record<string, number> }> };
    };
    expect(grep.structuredContent.documents[0]).toMatchObject({ file_name: "policy.pdf", keyword_counts: { 市场规模: 2 } });
    const search = (await inspect("--method", "tools/call", "--tool-name", "knowledge_search", "--tool-arg", 'queries=["battery warranty"]', "--tool-arg", "top_k=2")) as {
      structuredContent: { hits: Array<{ text: string }> };
    };
    expect(search.structuredContent.hits[0]!.text).toContain("Batteries are covered for 12 months");
  });
});
