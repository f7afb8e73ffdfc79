// The production server's Node flags (scripts/server-node-flags.txt), for the servers that tests and
// benchmarks start themselves; `npm start` reads the same file in scripts/start.sh.
import { readFileSync } from "node:fs";
import path from "node:path";

export function serverNodeFlags(): string[] {
  const file = path.join(import.meta.dirname, "server-node-flags.txt");
  return readFileSync(file, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
}
