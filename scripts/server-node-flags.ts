// The production server's Node flags (scripts/server-node-flags.txt) and keep-alive timeout, for the
// servers that benchmarks start themselves; `npm start` (scripts/start.sh, which the e2e servers
// run) reads the same file and the same variable.
import { readFileSync } from "node:fs";
import path from "node:path";

export function serverNodeFlags(): string[] {
  const file = path.join(import.meta.dirname, "server-node-flags.txt");
  return readFileSync(file, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
}

/** KEEP_ALIVE_TIMEOUT_MS, as scripts/start.sh reads it (why 65 s: see there). */
export function keepAliveTimeoutMs(): number {
  const raw = process.env.KEEP_ALIVE_TIMEOUT_MS ?? "65000";
  // The same rule as scripts/start.sh, so a value one accepts the other does too.
  if (!/^[1-9][0-9]{0,6}$/.test(raw)) throw new Error(`KEEP_ALIVE_TIMEOUT_MS must be a whole number of milliseconds (1 to 9999999), got '${raw}'`);
  return Number(raw);
}
