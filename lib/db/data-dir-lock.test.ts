import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isProcessAlive } from "@/lib/server/process-liveness";
import { acquireDataDirLock, DataDirLockedError } from "./data-dir-lock";

// Issue 16, item 12: a restart right after a kill -9 found the dead server still listed as a
// zombie (killed, not yet reaped by its parent) and refused to open the data directory.
const children: Array<{ kill: () => void }> = [];
afterEach(() => children.splice(0).forEach((c) => c.kill()));

/** A zombie: `sleep 0.1` exits while its parent (`exec sleep 30`) never waits for it. */
async function makeZombie(): Promise<number> {
  const parent = spawn("sh", ["-c", "sleep 0.1 & echo $!; exec sleep 30"], { stdio: ["ignore", "pipe", "ignore"] });
  children.push({ kill: () => parent.kill("SIGKILL") });
  const pid = await new Promise<number>((resolve) => parent.stdout!.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))));
  for (let i = 0; i < 100; i++) {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    if (state === "Z") return pid;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("no zombie");
}

describe.skipIf(process.platform !== "linux")("data directory lock", () => {
  it("a zombie process is not alive", async () => {
    const zombie = await makeZombie();
    expect(() => process.kill(zombie, 0)).not.toThrow();
    expect(isProcessAlive(zombie)).toBe(false);
    expect(isProcessAlive(process.pid)).toBe(true);
  });

  it("takes over a lock held by a zombie, refuses one held by a live process", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "ka-lock-unit-"));
    writeFileSync(path.join(dir, "pglite.lock"), String(await makeZombie()));
    const release = acquireDataDirLock(dir);
    expect(readFileSync(path.join(dir, "pglite.lock"), "utf8")).toBe(String(process.pid));
    release();

    const live = spawn("sleep", ["30"]);
    children.push({ kill: () => live.kill("SIGKILL") });
    writeFileSync(path.join(dir, "pglite.lock"), String(live.pid));
    expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
  });
});
