import "server-only";
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isProcessAlive } from "@/lib/server/process-liveness";

// PGlite gives no error when two processes open one data directory: writes are silently lost
// (STACK-NOTES). This lock file, holding the owner's pid, refuses the second process instead.
export class DataDirLockedError extends Error {}

export function acquireDataDirLock(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, "pglite.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, "wx");
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(lockPath, "utf8").trim() === String(process.pid)) unlinkSync(lockPath);
        } catch {
          /* already gone */
        }
      };
      process.once("exit", release);
      return release;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const owner = Number.parseInt(readFileSync(lockPath, "utf8").trim(), 10);
      if (Number.isFinite(owner) && owner !== process.pid && isProcessAlive(owner)) {
        throw new DataDirLockedError(
          `The embedded database in ${path.resolve(dataDir)} is already open in process ${owner}. ` +
            `PGlite allows one process per data directory; stop that process, use another DATA_DIR, ` +
            `or set DATABASE_URL to a PostgreSQL server to run several processes.`,
        );
      }
      // A stale lock from a crashed process — gone, or a zombie not yet reaped — or our own pid
      // re-used: take it over.
      unlinkSync(lockPath);
    }
  }
  throw new DataDirLockedError(`Could not lock ${lockPath}`);
}
