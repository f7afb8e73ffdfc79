// A local external knowledge provider for tests (provider protocol v1 over HTTP, the wire format
// of docs/external-sources.md). Generic on purpose: a few sources with folders and documents,
// retrieval by word overlap, and switchable failure modes, so tests exercise the adapter, the
// core and the UI against real sockets without any provider-specific fixture.
//
// In-process:  const fake = await startFakeProvider(); fake.setMode("bad-json");
// As a process (Playwright): node --import tsx e2e/support/fake-provider-server.ts --port 5900
//   prints `listening http://127.0.0.1:5900`; POST /__state {"mode": "..."} switches the mode.
//
// Routes: POST /retrieve, POST /documents (listing), POST /health, GET /doc/:id (a page a
// person opens), POST /fail/* (always 500), POST|GET /__state.
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";

export type FakeProviderMode =
  | "ok"
  | "empty"
  | "error" // HTTP 500
  | "envelope-error" // {code: "FORBIDDEN"} in the envelope
  | "bad-json"
  | "huge" // 50 MB body
  | "many" // 10,000 results
  | "bad-scores" // NaN / negative / huge scores
  | "bad-uris" // javascript:, file:, credential and private URIs
  | "slow"; // answers after 5 s

export interface FakeDoc {
  id: string;
  name: string;
  source: string;
  folder: string | null;
  text: string;
}

export const FAKE_SOURCES = [
  { id: "handbook", name: "Team handbook" },
  { id: "runbooks", name: "Runbooks" },
];
export const FAKE_FOLDERS = [{ id: "folder-ops", name: "Operations", source: "handbook" }];
export const FAKE_DOCS: FakeDoc[] = [
  { id: "doc-release", name: "Release checklist", source: "handbook", folder: null, text: "Every release needs two approvers and a rollback plan before the deploy window opens." },
  { id: "doc-oncall", name: "On-call rota", source: "handbook", folder: "folder-ops", text: "The on-call engineer answers pages within fifteen minutes and writes the incident timeline." },
  { id: "doc-backup", name: "Backup policy", source: "handbook", folder: "folder-ops", text: "Backups are taken every night and a restore drill runs every quarter." },
  { id: "doc-deploy", name: "Deploy runbook", source: "runbooks", folder: null, text: "A deploy starts with the release checklist, then the canary, then the full rollout." },
];

export interface RecordedCall {
  path: string;
  body: Record<string, unknown>;
  auth: string | undefined;
}

export interface FakeProvider {
  baseUrl: string;
  calls: RecordedCall[];
  setMode(mode: FakeProviderMode): void;
  /** The listing (POST /documents) fails with 500 while set. */
  setListingFails(fails: boolean): void;
  close(): Promise<void>;
}

const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);

type Target = { id: string; target_type: string; node_id?: string | null; document_id?: string | null };

function searchDocs(body: Record<string, unknown>): FakeDoc[] {
  const kbs = Array.isArray(body.knowledgeBaseIds) ? (body.knowledgeBaseIds as string[]) : [];
  const targets = Array.isArray(body.targets) ? (body.targets as Target[]) : [];
  const q = words(String(body.query ?? ""));
  const inScope = (d: FakeDoc) => {
    if (targets.length) {
      return targets.some(
        (t) =>
          t.id === d.source &&
          (t.target_type === "knowledge_base" ||
            (t.target_type === "folder" && t.node_id === d.folder) ||
            (t.target_type === "document" && t.document_id === d.id)),
      );
    }
    return kbs.length === 0 || kbs.includes(d.source);
  };
  return FAKE_DOCS.filter(inScope)
    .map((d) => ({ d, n: [...words(d.text + " " + d.name)].filter((w) => q.has(w)).length }))
    .filter((x) => x.n > 0)
    .sort((a, b) => b.n - a.n)
    .map((x) => x.d);
}

function record(d: FakeDoc, score: number, uri?: string) {
  return {
    id: `chunk-${d.id}`,
    content: d.text,
    score,
    source: { id: d.id, title: d.name, locator: `${d.source}/${d.folder ?? "-"}/${d.id}#p1`, ...(uri ? { uri } : {}) },
    metadata: { source_id: d.source, folder: d.folder, words: d.text.split(" ").length },
  };
}

function listing(body: Record<string, unknown>) {
  const sourceId = typeof body.source_id === "string" ? body.source_id : null;
  const parentId = typeof body.parent_id === "string" ? body.parent_id : null;
  const limit = Math.min(100, Math.max(1, Number(body.limit) || 50));
  const offset = typeof body.cursor === "string" ? Number(body.cursor) || 0 : 0;
  let items: Record<string, unknown>[];
  if (sourceId === null) items = FAKE_SOURCES.map((s) => ({ id: s.id, name: s.name, type: "knowledge_base" }));
  else {
    const folders = FAKE_FOLDERS.filter((f) => f.source === sourceId && parentId === null).map((f) => ({
      id: f.id,
      name: f.name,
      type: "folder",
      source_id: sourceId,
      node_id: f.id,
      parent_id: null,
    }));
    const docs = FAKE_DOCS.filter((d) => d.source === sourceId && d.folder === parentId).map((d) => ({
      id: d.id,
      name: d.name,
      type: "document",
      source_id: sourceId,
      node_id: `document:${d.id}`,
      parent_id: d.folder,
    }));
    items = [...folders, ...docs];
  }
  const page = items.slice(offset, offset + limit);
  return { items: page, next_cursor: offset + limit < items.length ? String(offset + limit) : null };
}

const envelope = (data: unknown) => JSON.stringify({ code: 0, msg: "success", data });

export async function startFakeProvider(opts: { port?: number; host?: string } = {}): Promise<FakeProvider> {
  let mode: FakeProviderMode = "ok";
  let listingFails = false;
  const calls: RecordedCall[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      let body: Record<string, unknown> = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        /* the tests send JSON */
      }
      const url = new URL(req.url ?? "/", "http://x");
      if (url.pathname !== "/__state") calls.push({ path: url.pathname, body, auth: req.headers.authorization });
      const json = (s: string, status = 200) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(s);
      };
      if (url.pathname === "/__state") {
        if (req.method === "POST") {
          if (typeof body.mode === "string") mode = body.mode as FakeProviderMode;
          if (typeof body.listingFails === "boolean") listingFails = body.listingFails;
          if (body.clearCalls) calls.length = 0;
        }
        return json(JSON.stringify({ mode, listingFails, calls }));
      }
      if (url.pathname.startsWith("/fail/")) return json("{}", 500);
      if (url.pathname === "/health") return mode === "error" ? json("{}", 503) : json(envelope({ status: "ready" }));
      if (url.pathname === "/documents") return listingFails ? json("{}", 500) : json(envelope(listing(body)));
      if (url.pathname.startsWith("/doc/")) {
        const doc = FAKE_DOCS.find((d) => d.id === decodeURIComponent(url.pathname.slice(5)));
        res.writeHead(doc ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
        return res.end(doc ? `<!doctype html><title>${doc.name}</title><h1 data-testid="provider-page">${doc.name}</h1><p>${doc.text}</p>` : "not found");
      }
      if (url.pathname !== "/retrieve") return json("{}", 404);
      const hits = searchDocs(body);
      switch (mode) {
        case "empty":
          return json(envelope({ results: [] }));
        case "error":
          return json("{}", 500);
        case "envelope-error":
          return json(JSON.stringify({ code: "FORBIDDEN", msg: "token may not read", data: null }));
        case "bad-json":
          return json("{not json");
        case "huge": {
          res.writeHead(200, { "content-type": "application/json" });
          const block = "x".repeat(1024 * 1024);
          res.write('{"results":[{"id":"a","content":"');
          for (let i = 0; i < 50; i++) res.write(block);
          return res.end('"}]}');
        }
        case "many":
          return json(envelope({ results: Array.from({ length: 10_000 }, (_, i) => ({ id: `m${i}`, content: `release approvers item ${i}`, score: 0.9 })) }));
        case "bad-scores":
          return json(
            // NaN cannot be written in JSON; a provider sends it as a string or null.
            envelope({ results: [
              { id: "s1", content: "release approvers one", score: "NaN" },
              { id: "s2", content: "release approvers two", score: -5 },
              { id: "s3", content: "release approvers three", score: 1e308 },
            ] }),
          );
        case "bad-uris":
          return json(
            envelope({ results: [
              { id: "u1", content: "release approvers js", score: 0.9, source: { title: "JS", uri: "javascript:alert(1)" } },
              { id: "u2", content: "release approvers file", score: 0.8, source: { title: "File", uri: "file:///etc/passwd" } },
              { id: "u3", content: "release approvers cred", score: 0.7, source: { title: "Cred", uri: "https://user:pw@example.com/x" } },
              { id: "u4", content: "release approvers private", score: 0.6, source: { title: "Private", uri: "http://10.0.0.5/x" } },
            ] }),
          );
        case "slow": {
          const t = setTimeout(() => json(envelope({ results: hits.map((d) => record(d, 0.9)) })), 5000);
          res.on("close", () => clearTimeout(t));
          return;
        }
        default:
          return json(envelope({ results: hits.slice(0, Number(body.topK) || 8).map((d, i) => record(d, 0.95 - i * 0.05, `https://provider.example.com/doc/${d.id}`)) }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    calls,
    setMode: (m) => void (mode = m),
    setListingFails: (f) => void (listingFails = f),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const isMain = !!process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isMain) {
  const i = process.argv.indexOf("--port");
  const fake = await startFakeProvider({ port: i >= 0 ? Number(process.argv[i + 1]) : 0 });
  console.log(`listening ${fake.baseUrl}`);
}
