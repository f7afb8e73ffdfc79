import "server-only";

// An SSE stream of one database row's live state (a parse job's stages, an evaluation run's
// progress): the current state first (a client connecting late, or after the end, gets it at
// once), then every event of the row's bus, until a terminal event, which is sent and ends the
// stream. The bus is subscribed before the state is read, so nothing in between is lost. The
// bus carries other instances' events too when the relay is connected (LISTEN/NOTIFY); while the
// stream is quiet the state is read again (every pollMs) as a safety net, and a polled state
// that is older than what was already sent is dropped (writes of progress may lag the bus). A
// comment heartbeat is sent every heartbeatMs. Access checks are the route's job.

export interface LiveStreamSpec<E extends { type: string }> {
  /** Listens to the row's events; returns the unsubscribe function. */
  subscribe(listener: (event: E) => void): () => void;
  /** The row's current state as one event (a terminal one when it has ended or is gone). */
  snapshot(): Promise<E>;
  isTerminal(event: E): boolean;
  /** Order of the live states: a polled state that ranks below the last one sent is dropped. */
  rank(event: E): number;
  /** Sent (and the stream ended) when the state cannot be read. */
  readError: E;
  signal?: AbortSignal;
  heartbeatMs?: number;
  pollMs: number;
}

const encoder = new TextEncoder();

/** `event: <type>` with the rest of the object as `data:` JSON. */
export function formatSseEvent(event: { type: string }): Uint8Array {
  const { type, ...data } = event;
  return encoder.encode(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
}

export function liveStateStream<E extends { type: string }>(spec: LiveStreamSpec<E>): ReadableStream<Uint8Array> {
  const heartbeatMs = spec.heartbeatMs ?? 15_000;
  const pollMs = spec.pollMs;
  let cleanup = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      let lastSentAt = Date.now();
      let lastEventAt = Date.now();
      let lastKey = "";
      let lastRank = -Infinity;
      let unsubscribe = () => {};
      let heartbeat: NodeJS.Timeout | undefined;
      let poll: NodeJS.Timeout | undefined;
      let polling = false;

      const close = () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        clearInterval(heartbeat);
        clearInterval(poll);
        spec.signal?.removeEventListener("abort", close);
        try {
          controller.close();
        } catch {
          /* already closed or errored */
        }
      };
      cleanup = close;
      const send = (event: E) => {
        if (closed) return;
        const terminal = spec.isTerminal(event);
        if (!terminal) lastRank = Math.max(lastRank, spec.rank(event));
        const key = JSON.stringify(event);
        if (key === lastKey) return;
        lastKey = key;
        try {
          controller.enqueue(formatSseEvent(event));
        } catch {
          return close();
        }
        lastSentAt = Date.now();
        if (terminal) close();
      };
      const sendPolled = (event: E) => {
        if (!spec.isTerminal(event) && spec.rank(event) < lastRank) return;
        send(event);
      };

      if (spec.signal?.aborted) return close();
      spec.signal?.addEventListener("abort", close, { once: true });

      const early: E[] = [];
      let ready = false;
      unsubscribe = spec.subscribe((e) => {
        lastEventAt = Date.now();
        if (ready) send(e);
        else early.push(e);
      });

      void spec
        .snapshot()
        .then((first) => {
          ready = true;
          // A terminal event that arrived meanwhile wins over the (older) snapshot.
          const terminal = early.find((e) => spec.isTerminal(e));
          send(terminal ?? early[early.length - 1] ?? first);
          if (closed) return;
          heartbeat = setInterval(() => {
            if (closed) return;
            if (Date.now() - lastSentAt >= heartbeatMs - 50) {
              try {
                controller.enqueue(encoder.encode(`: heartbeat\n\n`));
                lastSentAt = Date.now();
              } catch {
                close();
              }
            }
          }, Math.max(250, Math.min(heartbeatMs, 5_000)));
          poll = setInterval(() => {
            if (closed || polling || Date.now() - lastEventAt < pollMs) return;
            polling = true;
            spec
              .snapshot()
              .then(sendPolled)
              .catch(() => {})
              .finally(() => {
                polling = false;
              });
          }, pollMs);
        })
        .catch(() => send(spec.readError));
    },
    cancel() {
      cleanup();
    },
  });
}
