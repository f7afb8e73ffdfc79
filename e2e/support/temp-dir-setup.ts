// Vitest global setup of the integration project: every temporary directory of the run (the
// tests' databases, uploads, servers' data) lives under one directory that is removed when the
// run ends. scripts/test-all.sh does the same for a whole test run; this covers running the
// tests directly with `npx vitest`, which left them in the system's temp directory.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export default function setup(): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), "ka-vitest-"));
  const previous = process.env.TMPDIR;
  // Read by os.tmpdir() in the test workers and in the servers the tests start.
  process.env.TMPDIR = dir;
  return () => {
    rmSync(dir, { recursive: true, force: true });
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  };
}
