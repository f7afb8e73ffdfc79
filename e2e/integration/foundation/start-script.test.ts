import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

// `npm start` is scripts/start.sh. These check the launcher up to the moment it hands over to
// `next start` (the e2e suite runs the servers it starts); nothing here needs a build.
function launch(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn("bash", ["scripts/start.sh", "--no-build"], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: "3999", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no outcome: ${out}`));
    }, 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      // Past every check: the script is about to exec the server, which is not under test here.
      if (out.includes("[start] serving")) child.kill("SIGKILL");
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe.skipIf(!!process.env.TEST_DATABASE_URL)("npm start's launcher", () => {
  it("starts outside a git checkout (a source archive)", async () => {
    // GIT_DIR pointing nowhere makes every git command fail as it does without a checkout.
    const { out } = await launch({ GIT_DIR: "/nonexistent" });
    expect(out).toContain("[start] serving http://127.0.0.1:3999");
  });

  it("refuses a keep-alive timeout that is not a whole number of milliseconds", async () => {
    for (const bad of ["abc", "0", "-5", "1.5"]) {
      const { code, out } = await launch({ KEEP_ALIVE_TIMEOUT_MS: bad });
      expect(code, bad).toBe(1);
      expect(out).toContain(`KEEP_ALIVE_TIMEOUT_MS must be a whole number of milliseconds`);
      expect(out).not.toContain("[start] serving");
    }
  });
});
