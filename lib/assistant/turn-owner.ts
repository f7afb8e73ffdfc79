import "server-only";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { isProcessAlive } from "@/lib/server/process-liveness";

// Which process holds a conversation's turn: "<host>:<pid>:<boot id>". The boot id tells a
// restarted server that reuses a dead one's pid (pid 1 in a container) from that dead server.
const g = globalThis as unknown as { __kaTurnOwner?: string };

export function turnOwner(): string {
  g.__kaTurnOwner ??= `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  return g.__kaTurnOwner;
}

/**
 * True when the owner is certainly dead: a process on this host that is gone (or a zombie), or
 * an earlier boot under our own pid. Owners on other hosts are not judged here; their leases end
 * by expiry (TURN_LEASE_MS).
 */
export function isTurnOwnerDead(owner: string | null): boolean {
  if (!owner) return false;
  const m = /^(.*):(\d+):([0-9a-f]+)$/.exec(owner);
  if (!m) return false;
  const [, host, pidText] = m;
  if (host !== hostname()) return false;
  const pid = Number(pidText);
  if (pid === process.pid) return owner !== turnOwner();
  return !isProcessAlive(pid);
}
