import "server-only";
import type { JobEvent } from "./progress";

// Hooks through which this process tells the other app instances what happened (progress of a
// job it runs, jobs it queued or released). instance-relay.ts installs them on a PostgreSQL
// server (LISTEN/NOTIFY); with embedded PGlite there are no other instances and they stay unset.
// On globalThis: Next bundles modules more than once.

export interface ClusterPublisher {
  progress(fileId: string, event: JobEvent): void;
  jobsQueued(): void;
  /** Connected: other instances' events arrive as they happen (no need to poll snapshots). */
  live(): boolean;
}

const g = globalThis as unknown as { __kaClusterPublisher?: ClusterPublisher | null };

export function setClusterPublisher(p: ClusterPublisher | null): void {
  g.__kaClusterPublisher = p;
}

export function clusterPublisher(): ClusterPublisher | null {
  return g.__kaClusterPublisher ?? null;
}

/** Other instances' runners should look for jobs now (jobs were queued or released here). */
export function announceQueuedJobs(): void {
  g.__kaClusterPublisher?.jobsQueued();
}

export function clusterRelayLive(): boolean {
  return g.__kaClusterPublisher?.live() ?? false;
}
