import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { PORTS } from "./e2e/support/ports";

// Three real servers from one `next build`: local mode with the built-in extractive engine,
// local mode with the local OpenAI-compatible test model server, and password mode.
// Each gets its own throwaway data directory (one PGlite per directory, SPEC §13).
const tmp = (name: string) => mkdtempSync(path.join(tmpdir(), `ka-e2e-${name}-`));
// The production server as `npm start` launches it (its Node flags and keep-alive timeout), on the
// build `npm test` made just before.
const next = "bash scripts/start.sh --no-build";
// The local-mode server's data directory, made once by the runner and inherited by the workers
// (which evaluate this file again): a spec deletes an original behind the app's back there.
const localDataDir = (process.env.KA_E2E_LOCAL_DATA_DIR ??= tmp("local"));
const common = { NODE_ENV: "production", HOST: "127.0.0.1", ENABLE_FLOW_GALLERY: "true", SEED_SAMPLE: "true" };
// The local server has two external sources on the local test provider (e2e/ui/external-sources.spec.ts):
// one that lists and opens its documents, one that does neither (the fallbacks).
const fakeProvider = `http://127.0.0.1:${PORTS.fakeProvider}`;
const externalSources = {
  ALLOW_LOOPBACK_PROVIDERS: "true",
  EXTERNAL_PROVIDERS: JSON.stringify([
    { type: "http", key: "docs", label: "Docs", url: `${fakeProvider}/retrieve`, listUrl: `${fakeProvider}/documents`, openUrl: `${fakeProvider}/doc/{source_id}` },
    { type: "http", key: "notes", label: "Notes", url: `${fakeProvider}/retrieve` },
  ]),
};

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    baseURL: `http://127.0.0.1:${PORTS.local}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"], channel: undefined } }],
  webServer: [
    {
      command: `node --import tsx e2e/support/fake-openai-server.ts --port ${PORTS.fakeModel} --tokens-ms 40`,
      url: `http://127.0.0.1:${PORTS.fakeModel}/__fake/state`,
      reuseExistingServer: false,
      timeout: 30_000,
    },
    {
      command: `node --import tsx e2e/support/fake-provider-server.ts --port ${PORTS.fakeProvider}`,
      url: `${fakeProvider}/__state`,
      reuseExistingServer: false,
      timeout: 30_000,
    },
    {
      command: next,
      url: `http://127.0.0.1:${PORTS.local}/api/health`,
      env: { ...common, PORT: String(PORTS.local), AUTH_MODE: "local", DATA_DIR: localDataDir, ...externalSources },
      reuseExistingServer: false,
      timeout: 120_000,
    },
    {
      command: next,
      url: `http://127.0.0.1:${PORTS.model}/api/health`,
      env: {
        ...common,
        PORT: String(PORTS.model),
        AUTH_MODE: "local",
        DATA_DIR: tmp("model"),
        AI_CHAT_MODEL: "qwen-test",
        AI_CHAT_BASE_URL: `http://127.0.0.1:${PORTS.fakeModel}/v1`,
        AI_CHAT_API_KEY: "test-key",
        // The test model answers OpenAI tool calls (scripted / default agent), so agent mode is on.
        AI_CHAT_TOOLS: "true",
      },
      reuseExistingServer: false,
      timeout: 120_000,
    },
    {
      command: next,
      url: `http://127.0.0.1:${PORTS.password}/api/health`,
      env: { ...common, PORT: String(PORTS.password), AUTH_MODE: "password", DATA_DIR: tmp("password"), SEED_SAMPLE: "false" },
      reuseExistingServer: false,
      timeout: 120_000,
    },
  ],
});
