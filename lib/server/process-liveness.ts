import { readFileSync } from "node:fs";

/**
 * Whether a pid is a running process. `kill(pid, 0)` also succeeds for a zombie — a process that
 * died (kill -9) but whose parent has not reaped it yet, for a second or two after a crash under a
 * supervisor — so on Linux the state in /proc/<pid>/stat is checked too: Z (zombie) and X (dead)
 * are not alive.
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    // No procfs (macOS) or the process is gone since the signal: trust the signal.
    return process.platform !== "linux";
  }
  // "pid (comm) S …": comm may contain spaces and parentheses, the state follows the last ")".
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}
