import "server-only";

// Live state changes of database rows (an evaluation run's progress, …), keyed by topic and row
// id, for SSE routes. Events are delivered to this process's listeners and, on a PostgreSQL
// server, forwarded to the other app instances by the instance relay
// (lib/ingestion/instance-relay.ts: the same LISTEN/NOTIFY connection that carries the parse
// jobs' progress), which hands them to its own bus with deliverLiveEvent. With embedded PGlite
// there is one process and no forwarder. Lives in lib/db because every layer that owns such a
// row (lib/ingestion, lib/retrieval) may import it; on globalThis because Next bundles modules
// more than once.

/** `type` names the SSE event; `progress` is a live state, any other type ends the row's stream. */
export type LiveEvent = { type: string } & Record<string, unknown>;
export type LiveListener = (event: LiveEvent) => void;

export interface LiveForwarder {
  publish(topic: string, key: string, event: LiveEvent): void;
  /** Connected: other instances' events arrive as they happen. */
  live(): boolean;
}

const g = globalThis as unknown as { __kaLiveBus?: Map<string, Set<LiveListener>>; __kaLiveForwarder?: LiveForwarder | null };
const bus = (g.__kaLiveBus ??= new Map());
const id = (topic: string, key: string) => `${topic}\u0000${key}`;

/** Listens to one row's events; returns the unsubscribe function. */
export function subscribeLiveEvents(topic: string, key: string, listener: LiveListener): () => void {
  const k = id(topic, key);
  let set = bus.get(k);
  if (!set) bus.set(k, (set = new Set()));
  set.add(listener);
  return () => {
    const s = bus.get(k);
    if (!s) return;
    s.delete(listener);
    if (s.size === 0) bus.delete(k);
  };
}

/** This process's listeners and, through the relay, every other instance's. */
export function publishLiveEvent(topic: string, key: string, event: LiveEvent): void {
  deliverLiveEvent(topic, key, event);
  g.__kaLiveForwarder?.publish(topic, key, event);
}

/** This process's listeners only (an event relayed from another instance). */
export function deliverLiveEvent(topic: string, key: string, event: LiveEvent): void {
  const set = bus.get(id(topic, key));
  if (!set) return;
  for (const l of [...set]) {
    try {
      l(event);
    } catch {
      // A broken listener must not break the publisher (a job runner).
    }
  }
}

export function liveListenerCount(topic: string, key: string): number {
  return bus.get(id(topic, key))?.size ?? 0;
}

export function setLiveForwarder(f: LiveForwarder | null): void {
  g.__kaLiveForwarder = f;
}

export function liveForwarderConnected(): boolean {
  return g.__kaLiveForwarder?.live() ?? false;
}
