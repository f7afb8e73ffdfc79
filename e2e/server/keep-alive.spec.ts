import http from "node:http";
import { expect, test } from "@playwright/test";
import { PORTS } from "../support/ports";

// The production server as `npm start` launches it (scripts/start.sh) keeps an idle connection open
// longer than Node's default 5 s, so a client that loaded the page and asks a few seconds later
// reuses its connection instead of queueing for a new one (docs/benchmarks.md, "Chat").
const LOCAL_URL = `http://127.0.0.1:${PORTS.local}`;

function get(agent: http.Agent, path: string): Promise<{ status: number; socket: import("node:net").Socket }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${LOCAL_URL}${path}`, { agent }, (res) => {
        const socket = res.socket;
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, socket }));
      })
      .on("error", reject);
  });
}

test("an idle keep-alive connection is still open after 8 s", async () => {
  test.setTimeout(30_000);
  // By default Node 20 closes an idle connection ~6 s after its last response (measured here:
  // 5 s plus about 1 s); 8 s is clear of that.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await get(agent, "/api/health");
    expect(first.status).toBe(200);
    let closedAfterMs: number | null = null;
    const opened = Date.now();
    first.socket.once("close", () => {
      closedAfterMs = Date.now() - opened;
    });

    await new Promise((r) => setTimeout(r, 8_000));

    expect(closedAfterMs, "the server closed the idle connection").toBeNull();
    const second = await get(agent, "/api/health");
    expect(second.status).toBe(200);
    expect(second.socket).toBe(first.socket);
  } finally {
    agent.destroy();
  }
});
