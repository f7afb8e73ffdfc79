import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpProvider } from "../providers/http-provider";
import { validateProvider } from "../providers/protocol";

const received: { body: unknown; auth?: string }[] = [];
let server: http.Server;
let base = "";

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (req.url === "/search") {
        received.push({ body: JSON.parse(body), auth: req.headers.authorization });
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ results: [{ id: "r1", content: "hello", score: 0.7 }] }));
      } else if (req.url === "/to-private") {
        res.writeHead(307, { location: "http://10.0.0.1/search" });
        res.end();
      } else if (req.url === "/to-self") {
        res.writeHead(307, { location: "/search" });
        res.end();
      } else if (req.url === "/found") {
        res.writeHead(302, { location: "/search" });
        res.end();
      } else if (req.url === "/slow") {
        setTimeout(() => res.end("[]"), 3000).unref();
      } else if (req.url === "/bad-json") {
        res.end("{not json");
      } else {
        res.writeHead(500);
        res.end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const ctx = (signal = new AbortController().signal) => ({ ownerId: "o", sessionId: "s", turnId: "t", traceId: "trace-1", signal });
const req = { query: "q", topK: 3, knowledgeBaseIds: ["x"], filters: {} };

describe("HTTP provider adapter", () => {
  it("refuses loopback targets unless allowLoopback is set", () => {
    expect(() => createHttpProvider({ key: "ext", label: "Ext", url: `${base}/search` })).toThrow(/refused/);
    expect(() => createHttpProvider({ key: "ext", label: "Ext", url: "http://10.0.0.1/search", allowLoopback: true })).toThrow(/refused/);
  });

  it("POSTs only the standard request, with the bearer token, and validates as protocol v1", async () => {
    const p = createHttpProvider({ key: "ext", label: "Ext", url: `${base}/search`, token: "tok", allowLoopback: true });
    expect(validateProvider(p).key).toBe("ext");
    const out = await p.retrieve(req, ctx());
    expect(out).toEqual({ results: [{ id: "r1", content: "hello", score: 0.7 }] });
    expect(received.at(-1)).toEqual({ body: req, auth: "Bearer tok" });
  });

  it("re-checks redirect targets and refuses non-307/308 redirects", async () => {
    const priv = createHttpProvider({ key: "ext", label: "Ext", url: `${base}/to-private`, allowLoopback: true });
    await expect(priv.retrieve(req, ctx())).rejects.toThrow(/refus/i);
    const self = createHttpProvider({ key: "ext", label: "Ext", url: `${base}/to-self`, allowLoopback: true });
    await expect(self.retrieve(req, ctx())).resolves.toMatchObject({ results: [{ id: "r1" }] });
    const found = createHttpProvider({ key: "ext", label: "Ext", url: `${base}/found`, allowLoopback: true });
    await expect(found.retrieve(req, ctx())).rejects.toThrow(/302/);
  });

  it("refuses a host name that resolves to a private address at connect time", async () => {
    const p = createHttpProvider({
      key: "ext",
      label: "Ext",
      url: "http://rebind.example.com/search",
      lookup: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    await expect(p.retrieve(req, ctx())).rejects.toThrow(/non-public address 127\.0\.0\.1/);
  });

  it("stops on the caller's signal and reports bad JSON", async () => {
    const slow = createHttpProvider({ key: "ext", label: "Ext", url: `${base}/slow`, allowLoopback: true });
    const t0 = Date.now();
    await expect(slow.retrieve(req, ctx(AbortSignal.timeout(100)))).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(1500);
    const bad = createHttpProvider({ key: "ext", label: "Ext", url: `${base}/bad-json`, allowLoopback: true });
    await expect(bad.retrieve(req, ctx())).rejects.toThrow(/invalid JSON/);
  });
});
