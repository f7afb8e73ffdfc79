// Server-sent events decoding for OpenAI-compatible streams (WHATWG "event stream" rules).
// Providers differ in framing details — CRLF vs LF, keep-alive comments, a missing blank line
// after the last event — and TCP splits chunks anywhere, even inside a UTF-8 sequence or a CRLF,
// so the parser is incremental and byte-boundary agnostic.

export interface SseEvent {
  /** `event:` field; "message" when absent. */
  event: string;
  /** `data:` lines joined with "\n". */
  data: string;
}

/** One event (its data lines, or a line still without its end) may not grow past this. */
export const MAX_SSE_EVENT_CHARS = 1024 * 1024;

export class SseEventTooLarge extends Error {
  constructor() {
    super(`sent a stream event longer than ${MAX_SSE_EVENT_CHARS} characters`);
  }
}

export class SseParser {
  private buffer = "";
  private dataChars = 0;
  /** A chunk ended with "\r": a "\n" at the start of the next one belongs to the same break. */
  private pendingCr = false;
  private dataLines: string[] = [];
  private eventName = "";

  /** Feeds decoded text; returns the events completed by it. */
  push(text: string): SseEvent[] {
    if (text === "") return [];
    if (this.pendingCr && text.startsWith("\n")) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    const events: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer[i];
      if (ch !== "\n" && ch !== "\r") continue;
      this.line(this.buffer.slice(start, i), events);
      if (ch === "\r") {
        if (i + 1 === this.buffer.length) this.pendingCr = true;
        else if (this.buffer[i + 1] === "\n") i++;
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    // A peer that never ends a line or an event would otherwise grow this without bound.
    if (this.buffer.length + this.dataChars > MAX_SSE_EVENT_CHARS) throw new SseEventTooLarge();
    return events;
  }

  /** End of input: a last event without its terminating blank line is still delivered. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.buffer) this.line(this.buffer, events);
    this.buffer = "";
    this.line("", events);
    return events;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === "") {
      if (this.dataLines.length > 0) out.push({ event: this.eventName || "message", data: this.dataLines.join("\n") });
      this.dataLines = [];
      this.dataChars = 0;
      this.eventName = "";
      return;
    }
    if (line.startsWith(":")) return; // comment / keep-alive
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      this.dataLines.push(value);
      this.dataChars += value.length;
    }
    else if (field === "event") this.eventName = value;
    // id / retry are irrelevant to a one-shot completion stream.
  }
}

/**
 * Decodes a byte stream (a Node response or a WHATWG ReadableStream) into SSE events; `onChunk`
 * fires per received chunk (idle timers). A consumer that stops early (break, throw, abort)
 * ends the iteration, which destroys or cancels the stream and so releases the connection.
 */
export async function* readSseEvents(body: AsyncIterable<Uint8Array>, onChunk?: () => void): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder("utf-8");
  const parser = new SseParser();
  for await (const chunk of body) {
    onChunk?.();
    yield* parser.push(decoder.decode(chunk, { stream: true }));
  }
  yield* parser.push(decoder.decode());
  yield* parser.end();
}
