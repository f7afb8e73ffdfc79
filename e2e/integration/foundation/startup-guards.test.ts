import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Start-up refusals that protect data and users, checked on real processes.
function run(env: Record<string, string>, untilListening = false): Promise<{ code: number | null; out: string; kill: () => void }> {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "e2e/support/serve-app.ts", "--port", "0"], {
    env: { ...process.env, SEED_SAMPLE: "false", DATABASE_URL: "", TEST_DATABASE_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no outcome: ${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (untilListening && /listening /.test(out)) {
        clearTimeout(timer);
        resolve({ code: null, out, kill: () => child.kill("SIGKILL") });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      // Give the pipes a moment to flush the last message.
      setTimeout(() => resolve({ code, out, kill: () => {} }), 50);
    });
  });
}

describe.skipIf(!!process.env.TEST_DATABASE_URL)("start-up guards", () => {
  it("refuses a second process on the same embedded data directory, with a clear message", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "ka-lock-"));
    const first = await run({ DATA_DIR: dataDir, AUTH_MODE: "local" }, true);
    try {
      const second = await run({ DATA_DIR: dataDir, AUTH_MODE: "local" });
      expect(second.code).toBe(1);
      expect(second.out).toMatch(/already open in process \d+/);
      expect(second.out).toMatch(/DATABASE_URL/);
    } finally {
      first.kill();
    }
  }, 120_000);

  it("takes over the lock of a process that died", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "ka-lock-"));
    const first = await run({ DATA_DIR: dataDir, AUTH_MODE: "local" }, true);
    first.kill();
    await new Promise((r) => setTimeout(r, 300));
    const again = await run({ DATA_DIR: dataDir, AUTH_MODE: "local" }, true);
    expect(again.out).toMatch(/listening http:\/\/127\.0\.0\.1:\d+/);
    again.kill();
  }, 120_000);

  it("refuses local mode on a non-loopback bind address", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "ka-host-"));
    const r = await run({ DATA_DIR: dataDir, AUTH_MODE: "local", HOST: "0.0.0.0" });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/AUTH_MODE=local .* loopback/);
  }, 60_000);

  it("refuses an invalid configuration, naming the variable", async () => {
    const r = await run({ DATA_DIR: mkdtempSync(path.join(tmpdir(), "ka-env-")), MAX_FILE_BYTES: "lots" });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/MAX_FILE_BYTES/);
  }, 60_000);
});
