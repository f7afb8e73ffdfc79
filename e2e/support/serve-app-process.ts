import { spawn, type ChildProcess } from "node:child_process";

// The app's route handlers and boot (e2e/support/serve-app.ts) in a process of its own, for tests
// that kill it mid-work and start it again on the same data directory. Embedded database only:
// the caller's DATABASE_URL/TEST_DATABASE_URL are cleared unless `env` sets them.

export interface ServeAppProcess {
  child: ChildProcess;
  url: string;
}

export function startServeApp(env: Record<string, string>, startTimeoutMs = 90_000): Promise<ServeAppProcess> {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "e2e/support/serve-app.ts", "--port", "0"], {
    env: { ...process.env, SEED_SAMPLE: "false", DATABASE_URL: "", TEST_DATABASE_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), startTimeoutMs);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]! });
      }
    });
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    child.on("exit", (code) => reject(new Error(`server exited early (${code}): ${out}`)));
  });
}

/** SIGKILL (no shutdown code runs: the crash the tests recover from), resolved once it is gone. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}
