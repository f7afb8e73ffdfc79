import "server-only";
import pg from "pg";
import { describeError } from "./parsers/common";
import { setClusterPublisher, type ClusterPublisher } from "./cluster-events";
import { deliverJobEvent, type JobEvent } from "./progress";

// Several app instances on one PostgreSQL server (issue 24): one dedicated connection per
// instance LISTENs on two channels and NOTIFYs on them.
//   ka_job_progress  {o: instance, f: file id, e: JobEvent}: a job's live stages, delivered to
//                    the local bus of every other instance, so a browser connected to B sees
//                    the file that A indexes move without polling;
//   ka_jobs_queued   instance: jobs were queued or released (shutdown) → runners claim now.
// The connection's application_name carries the runner's worker id: a worker is alive while
// its connection is (IngestionRunner's liveness check takes over the jobs of a killed one).
// Lost connection: events are dropped (clients fall back to snapshots) and it reconnects.

const PROGRESS = "ka_job_progress";
const JOBS = "ka_jobs_queued";
/** Progress of one file is published at most this often (stage changes and ends at once). */
const PROGRESS_EVERY_MS = 150;
/** NOTIFY payloads are limited to 8000 bytes; messages are cut well below. */
const MAX_MESSAGE_CHARS = 500;

/** application_name of a worker's relay connection (63 characters at most, NAMEDATALEN). */
export function livenessName(workerId: string): string {
  return `ka ${workerId}`.slice(0, 63);
}

export interface RelayOptions {
  databaseUrl: string;
  instanceId: string;
  /** Another instance queued or released jobs. */
  onJobsQueued: () => void;
}

interface Pending {
  lastSentAt: number;
  lastStage: string;
  timer?: NodeJS.Timeout;
  event?: JobEvent;
}

export class InstanceRelay implements ClusterPublisher {
  private client: pg.Client | null = null;
  private connected = false;
  private closed = false;
  private retry?: NodeJS.Timeout;
  private backoff = 500;
  private readonly pending = new Map<string, Pending>();
  /** The last NOTIFY sent: close() waits for it (jobs released at shutdown must be announced). */
  private lastSend: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: RelayOptions) {}

  /** Connects and listens; resolves once listening (the first failure is thrown). */
  async start(): Promise<void> {
    await this.connect();
    setClusterPublisher(this);
  }

  live(): boolean {
    return this.connected;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.opts.databaseUrl, application_name: livenessName(this.opts.instanceId), keepAlive: true });
    client.on("notification", (n) => this.onNotification(n.channel, n.payload ?? ""));
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    await client.connect();
    try {
      await client.query(`LISTEN ${PROGRESS}`);
      await client.query(`LISTEN ${JOBS}`);
    } catch (e) {
      await client.end().catch(() => {});
      throw e;
    }
    this.client = client;
    this.connected = true;
    this.backoff = 500;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.connected = false;
    client.end().catch(() => {});
    if (this.closed) return;
    console.error("[relay] lost the LISTEN connection; reconnecting");
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    this.retry = setTimeout(() => {
      this.connect()
        .then(() => this.opts.onJobsQueued()) // jobs queued while we were away
        .catch((e) => {
          console.error(`[relay] reconnect failed: ${describeError(e)}`);
          this.backoff = Math.min(30_000, this.backoff * 2);
          if (!this.closed) this.scheduleReconnect();
        });
    }, this.backoff);
    this.retry.unref?.();
  }

  private onNotification(channel: string, payload: string): void {
    if (channel === JOBS) {
      if (payload !== this.opts.instanceId) this.opts.onJobsQueued();
      return;
    }
    if (channel !== PROGRESS) return;
    try {
      const m = JSON.parse(payload) as { o?: string; f?: string; e?: JobEvent };
      if (m.o === this.opts.instanceId || typeof m.f !== "string" || !m.e || typeof m.e !== "object") return;
      deliverJobEvent(m.f, m.e);
    } catch {
      /* not ours */
    }
  }

  private send(channel: string, payload: string): void {
    const c = this.client;
    if (!c || !this.connected) return;
    this.lastSend = c.query("SELECT pg_notify($1, $2)", [channel, payload]).catch((e) => console.error(`[relay] NOTIFY failed: ${describeError(e)}`));
  }

  progress(fileId: string, event: JobEvent): void {
    let p = this.pending.get(fileId);
    if (!p) {
      p = { lastSentAt: 0, lastStage: "" };
      this.pending.set(fileId, p);
    }
    const stage = event.type === "progress" ? event.stage : event.type;
    const now = Date.now();
    if (event.type !== "progress" || stage !== p.lastStage || now - p.lastSentAt >= PROGRESS_EVERY_MS) {
      clearTimeout(p.timer);
      p.timer = undefined;
      p.event = undefined;
      this.publishNow(fileId, p, event);
      if (event.type !== "progress") this.pending.delete(fileId);
      return;
    }
    // Within the window: keep the latest, send it when the window ends.
    p.event = event;
    p.timer ??= setTimeout(() => {
      const q = this.pending.get(fileId);
      if (!q?.event) return;
      q.timer = undefined;
      const e = q.event;
      q.event = undefined;
      this.publishNow(fileId, q, e);
    }, PROGRESS_EVERY_MS - (now - p.lastSentAt));
  }

  private publishNow(fileId: string, p: Pending, event: JobEvent): void {
    p.lastSentAt = Date.now();
    p.lastStage = event.type === "progress" ? event.stage : event.type;
    const e = "message" in event && event.message.length > MAX_MESSAGE_CHARS ? { ...event, message: event.message.slice(0, MAX_MESSAGE_CHARS) + "…" } : event;
    this.send(PROGRESS, JSON.stringify({ o: this.opts.instanceId, f: fileId, e }));
  }

  jobsQueued(): void {
    this.send(JOBS, this.opts.instanceId);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
    setClusterPublisher(null);
    await this.lastSend;
    const c = this.client;
    this.client = null;
    this.connected = false;
    await c?.end().catch(() => {});
  }
}
