import "server-only";
import pg from "pg";
import { deliverLiveEvent, setLiveForwarder, type LiveEvent, type LiveForwarder } from "@/lib/db/live-events";
import { describeError } from "./parsers/common";
import { setClusterPublisher, type ClusterPublisher } from "./cluster-events";
import { deliverJobEvent, type JobEvent } from "./progress";

// Several app instances on one PostgreSQL server (issue 24): one dedicated connection per
// instance LISTENs on two channels and NOTIFYs on them.
//   ka_job_progress  {o: instance, f: file id, e: JobEvent}: a job's live stages, delivered to
//                    the local bus of every other instance, so a browser connected to B sees
//                    the file that A indexes move without polling;
//   ka_jobs_queued   instance: jobs were queued or released (shutdown) → runners claim now;
//   ka_live_events   {o, t: topic, k: row id, e: LiveEvent}: other rows' live state (an evaluation
//                    run's progress, lib/db/live-events.ts), delivered to the other instances'
//                    live bus, coalesced like the jobs' progress.
// The connection's application_name carries the runner's worker id: a worker is alive while
// its connection is (IngestionRunner's liveness check takes over the jobs of a killed one).
// Lost connection: events are dropped (clients fall back to snapshots) and it reconnects.

const PROGRESS = "ka_job_progress";
const JOBS = "ka_jobs_queued";
const LIVE = "ka_live_events";
/** Progress of one file is published at most this often (stage changes and ends at once). */
const PROGRESS_EVERY_MS = 150;
/** NOTIFY payloads are limited to 8000 bytes; messages are cut well below. */
const MAX_MESSAGE_CHARS = 500;
/** A live event larger than this is not relayed (the other instances' streams poll the row). */
const MAX_PAYLOAD_BYTES = 7_900;

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
  event?: { type: string };
  publish: (event: { type: string }) => void;
}

/** A live state's phase: a change of phase (a job's stage, a run's status) and an end go out at once. */
function phaseOf(event: { type: string; stage?: unknown; status?: unknown }): string {
  return event.type !== "progress" ? event.type : String(event.stage ?? event.status ?? "");
}

export class InstanceRelay implements ClusterPublisher, LiveForwarder {
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
    setLiveForwarder(this);
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
      await client.query(`LISTEN ${LIVE}`);
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
    if (channel === LIVE) {
      try {
        const m = JSON.parse(payload) as { o?: string; t?: string; k?: string; e?: LiveEvent };
        if (m.o === this.opts.instanceId || typeof m.t !== "string" || typeof m.k !== "string" || !m.e || typeof m.e.type !== "string") return;
        deliverLiveEvent(m.t, m.k, m.e);
      } catch {
        /* not ours */
      }
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
    this.coalesce(`job\u0000${fileId}`, event, (e) => {
      const capped = "message" in e && typeof e.message === "string" && e.message.length > MAX_MESSAGE_CHARS ? { ...e, message: e.message.slice(0, MAX_MESSAGE_CHARS) + "…" } : e;
      this.send(PROGRESS, JSON.stringify({ o: this.opts.instanceId, f: fileId, e: capped }));
    });
  }

  /** A row's live state (lib/db/live-events.ts) to the other instances. */
  publish(topic: string, key: string, event: LiveEvent): void {
    this.coalesce(`live\u0000${topic}\u0000${key}`, event, (e) => {
      const payload = JSON.stringify({ o: this.opts.instanceId, t: topic, k: key, e });
      if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) return console.error(`[relay] live event of ${topic} too large to relay (${payload.length} characters)`);
      this.send(LIVE, payload);
    });
  }

  /**
   * Progress of one row goes out at most every PROGRESS_EVERY_MS; a change of phase and the end
   * go out at once, and the latest progress of a window is sent when the window ends.
   */
  private coalesce(id: string, event: { type: string }, publish: (event: { type: string }) => void): void {
    let p = this.pending.get(id);
    if (!p) {
      p = { lastSentAt: 0, lastStage: "", publish };
      this.pending.set(id, p);
    }
    p.publish = publish;
    const stage = phaseOf(event);
    const now = Date.now();
    if (event.type !== "progress" || stage !== p.lastStage || now - p.lastSentAt >= PROGRESS_EVERY_MS) {
      clearTimeout(p.timer);
      p.timer = undefined;
      p.event = undefined;
      this.publishNow(p, event);
      if (event.type !== "progress") this.pending.delete(id);
      return;
    }
    // Within the window: keep the latest, send it when the window ends.
    p.event = event;
    p.timer ??= setTimeout(() => {
      const q = this.pending.get(id);
      if (!q?.event) return;
      q.timer = undefined;
      const e = q.event;
      q.event = undefined;
      this.publishNow(q, e);
    }, PROGRESS_EVERY_MS - (now - p.lastSentAt));
  }

  private publishNow(p: Pending, event: { type: string }): void {
    p.lastSentAt = Date.now();
    p.lastStage = phaseOf(event);
    p.publish(event);
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
    setLiveForwarder(null);
    await this.lastSend;
    const c = this.client;
    this.client = null;
    this.connected = false;
    await c?.end().catch(() => {});
  }
}
