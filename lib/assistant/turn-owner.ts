import "server-only";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { isProcessAlive } from "@/lib/server/process-liveness";

// Which process holds a conversation's turn: "<host>:<pid>:<boot id>". The boot id tells a
// restarted server that reuses a dead one's pid (pid 1 in a container) from that dead server.
// On a PostgreSQL server the same boot id names the instance's worker ("live:<boot>:<pid>:<host>",
// whose relay connection carries it as application_name), so another instance can tell from
// pg_stat_activity that a turn's process is gone (turn-recovery.ts).
const g = globalThis as unknown as { __kaBootId?: string };

function bootId(): string {
  g.__kaBootId ??= randomUUID().slice(0, 8);
  return g.__kaBootId;
}

export function turnOwner(): string {
  return `${hostname()}:${process.pid}:${bootId()}`;
}

/** This process's worker id on a PostgreSQL server (ingestion jobs' locked_by, relay liveness). */
export function instanceWorkerId(): string {
  return `live:${bootId()}:${process.pid}:${hostname()}`;
}

function parseOwner(owner: string): { host: string; pid: number; boot: string } | null {
  const m = /^(.*):(\d+):([0-9a-f]+)$/.exec(owner);
  return m ? { host: m[1]!, pid: Number(m[2]), boot: m[3]! } : null;
}

/** The worker id of the instance that holds a turn (see instanceWorkerId), or null. */
export function workerIdOfOwner(owner: string): string | null {
  const o = parseOwner(owner);
  return o ? `live:${o.boot}:${o.pid}:${o.host}` : null;
}

/**
 * True when the owner is certainly dead: a process on this host that is gone (or a zombie), or
 * an earlier boot under our own pid. Owners on other hosts are judged by their liveness
 * connection instead (recoverTurnsOfGoneInstances), or their leases end by expiry.
 */
export function isTurnOwnerDead(owner: string | null): boolean {
  if (!owner) return false;
  const o = parseOwner(owner);
  if (!o) return false;
  if (o.host !== hostname()) return false;
  if (o.pid === process.pid) return owner !== turnOwner();
  return !isProcessAlive(o.pid);
}
