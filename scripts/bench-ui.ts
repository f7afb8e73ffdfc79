// npm run bench:ui — figures for the browser (issue 6), measured in Debian Chromium against the
// production build (`npm run build` first):
//   1. first-load JS of the main page: the script bytes the browser downloads for "/" (encoded,
//      i.e. as sent, and decoded), from the Resource Timing entries;
//   2. the longest main-thread task (Long Tasks API) while an answer of 2,000 deltas streams
//      from the local OpenAI-compatible test server through the real server into the sidebar.
// Writes docs/benchmarks-ui.md.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import { startFakeOpenAI } from "../e2e/support/fake-openai-server";

const PORT = 3950;
const DELTAS = 2000;

async function waitFor<T>(fn: () => Promise<T | undefined>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch {
      /* not yet */
    }
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function main() {
  const model = await startFakeOpenAI();
  const server = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-H", "127.0.0.1", "-p", String(PORT)], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "ka-bench-ui-")),
      AUTH_MODE: "local",
      SEED_SAMPLE: "true",
      AI_CHAT_MODEL: "bench-model",
      AI_CHAT_BASE_URL: model.baseUrl,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://127.0.0.1:${PORT}`;
  try {
    await waitFor(async () => ((await fetch(`${base}/api/health`)).ok ? true : undefined));
    await waitFor(async () => {
      const tree = (await (await fetch(`${base}/v1/knowledges/tree`)).json()) as { data: { items: Array<{ files: Array<{ status: string }> }> } };
      const files = tree.data.items[0]?.files ?? [];
      return files.length > 0 && files.every((f) => f.status === "success") ? true : undefined;
    });

    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.addInitScript(() => {
      const w = window as unknown as { __longTasks: number[] };
      w.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__longTasks.push(e.duration);
      }).observe({ type: "longtask", buffered: true });
    });
    await page.goto(base, { waitUntil: "networkidle" });
    const js = await page.evaluate(() =>
      (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
        .filter((e) => e.initiatorType === "script" || e.name.endsWith(".js"))
        .reduce((a, e) => ({ encoded: a.encoded + e.encodedBodySize, decoded: a.decoded + e.decodedBodySize, files: a.files + 1 }), { encoded: 0, decoded: 0, files: 0 }),
    );

    // 2,000 one-character deltas, 2 ms apart: far faster than a person reads, so rendering is the bottleneck.
    const tokens: string[] = Array.from({ length: DELTAS }, (_, i) => (i % 50 === 49 ? "。\n" : "测"));
    tokens[0] = "[1]";
    model.script({ kind: "stream", tokens, tokenMs: 2 });
    await page.getByTestId("composer").fill("私有化部署的最低配置是什么？");
    await page.evaluate(() => ((window as unknown as { __longTasks: number[] }).__longTasks = []));
    const t0 = Date.now();
    await page.getByTestId("send-button").click();
    await page.locator('[data-testid="message-assistant"][data-phase="done"]').last().waitFor({ timeout: 120_000 });
    const streamMs = Date.now() - t0;
    const long = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks);
    await browser.close();

    const max = long.length ? Math.max(...long) : 0;
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
    const doc = `# Browser figures

Measured by \`npm run bench:ui\` on ${new Date().toISOString().slice(0, 10)} against the production build in Debian
Chromium (headless, 2 cores, no CPU throttling), local mode with the sample KB, the answer streamed from the local
OpenAI-compatible test server.

| figure | value |
| --- | ---: |
| first-load JS of \`/\` (as sent, ${js.files} files) | ${kb(js.encoded)} |
| first-load JS of \`/\` (decoded) | ${kb(js.decoded)} |
| deltas streamed | ${DELTAS} |
| time from send to done | ${streamMs} ms |
| long tasks (> 50 ms) during the stream | ${long.length} |
| longest main-thread task during the stream | ${long.length ? `${max.toFixed(0)} ms` : "under 50 ms (no task reached the Long Tasks API's 50 ms threshold)"} |

pdf.js is loaded only when a PDF is opened, so it is not part of the first load.
`;
    mkdirSync("docs", { recursive: true });
    writeFileSync("docs/benchmarks-ui.md", doc);
    console.log(doc);
  } finally {
    server.kill("SIGTERM");
    await model.close();
  }
  process.exit(0);
}

void main();
