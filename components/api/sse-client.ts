// SSE over fetch (@microsoft/fetch-event-source) for the chat stream and parse-job progress.
// The library retries by default; a retried POST would ask the question twice (SPEC §5), so
// onerror always rethrows and a dropped stream surfaces as an error the user can retry.
import { EventStreamContentType, fetchEventSource } from "@microsoft/fetch-event-source";
import { ApiError, unwrapEnvelope } from "./http-client";

export interface SseEvent {
  event: string;
  data: unknown;
}

export interface SseRequest {
  url: string;
  method?: "GET" | "POST";
  body?: unknown;
  signal: AbortSignal;
  onEvent: (e: SseEvent) => void;
  /** Names of events after which the stream is complete; a close before one is an error. */
  terminal: string[];
}

class StreamClosedError extends ApiError {
  constructor() {
    super("NETWORK_ERROR", "The stream closed before it finished.", 0);
  }
}

/** Resolves when a terminal event arrived or the signal aborted; rejects with ApiError otherwise. */
export async function openSse(req: SseRequest): Promise<void> {
  let finished = false;
  const headers: Record<string, string> = { Accept: EventStreamContentType };
  if (req.body !== undefined) headers["Content-Type"] = "application/json";
  await fetchEventSource(req.url, {
    method: req.method ?? "GET",
    headers,
    body: req.body === undefined ? undefined : JSON.stringify(req.body),
    signal: req.signal,
    credentials: "same-origin",
    openWhenHidden: true,
    async onopen(res) {
      const type = res.headers.get("content-type") ?? "";
      if (res.ok && type.startsWith(EventStreamContentType)) return;
      // Validation and access failures come back as a JSON envelope before streaming starts.
      await unwrapEnvelope(res);
      throw new ApiError("INTERNAL_ERROR", `Unexpected stream response (HTTP ${res.status})`, res.status);
    },
    onmessage(msg) {
      // Heartbeat comments produce empty messages; they only keep the connection alive.
      if (!msg.event && !msg.data) return;
      let data: unknown = null;
      if (msg.data) {
        try {
          data = JSON.parse(msg.data);
        } catch {
          data = msg.data;
        }
      }
      const event = msg.event || "message";
      if (req.terminal.includes(event)) finished = true;
      req.onEvent({ event, data });
    },
    onclose() {
      if (!finished && !req.signal.aborted) throw new StreamClosedError();
    },
    onerror(err) {
      // Rethrowing stops fetch-event-source from retrying (it would re-send the request).
      if (err instanceof ApiError) throw err;
      throw new ApiError("NETWORK_ERROR", (err as Error)?.message ?? "Network error", 0);
    },
  });
}
