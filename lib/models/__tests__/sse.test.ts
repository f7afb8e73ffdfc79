import { Readable } from "node:stream";
import { ReadableStream } from "node:stream/web";
import { describe, expect, it } from "vitest";
import { MAX_SSE_EVENT_CHARS, SseEventTooLarge, SseParser, readSseEvents } from "@/lib/models/sse";

const FIXTURE =
  ": keep-alive\r\n\r\n" +
  'data: {"a":1}\r\n\r\n' +
  "event: note\ndata: line one\ndata: line two\n\n" +
  "data:no-space\r\r" +
  "data: 中文片段\n\n" +
  "data: [DONE]\n\n";

const EXPECTED = [
  { event: "message", data: '{"a":1}' },
  { event: "note", data: "line one\nline two" },
  { event: "message", data: "no-space" },
  { event: "message", data: "中文片段" },
  { event: "message", data: "[DONE]" },
];

function parseInPieces(pieces: string[]) {
  const p = new SseParser();
  return [...pieces.flatMap((x) => p.push(x)), ...p.end()];
}

function byteStream(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
  const bounds = [0, ...cuts, bytes.length];
  return new ReadableStream({
    start(c) {
      for (let i = 1; i < bounds.length; i++) c.enqueue(bytes.slice(bounds[i - 1], bounds[i]));
      c.close();
    },
  });
}

async function collect(stream: AsyncIterable<Uint8Array>) {
  const out = [];
  for await (const ev of readSseEvents(stream)) out.push(ev);
  return out;
}

describe("SseParser", () => {
  it("handles LF, CRLF, CR, comments, multi-line data and event names", () => {
    expect(parseInPieces([FIXTURE])).toEqual(EXPECTED);
  });

  it("gives the same events for every split point of the text, including inside CRLF", () => {
    for (let i = 0; i <= FIXTURE.length; i++) {
      expect(parseInPieces([FIXTURE.slice(0, i), FIXTURE.slice(i)]), `split at ${i}`).toEqual(EXPECTED);
    }
  });

  it("delivers a final event that lacks its blank line", () => {
    expect(parseInPieces(["data: [DONE]"])).toEqual([{ event: "message", data: "[DONE]" }]);
  });

  it("ignores an empty push between a CR and its LF", () => {
    expect(parseInPieces(["data: a\r", "", "\ndata: b\n\n"])).toEqual([{ event: "message", data: "a\nb" }]);
  });
});

describe("SseParser limits", () => {
  it("refuses a line that never ends once it passes the limit", () => {
    const p = new SseParser();
    expect(p.push(`data: ${"x".repeat(MAX_SSE_EVENT_CHARS - 100)}`)).toEqual([]);
    expect(() => p.push("x".repeat(200))).toThrow(SseEventTooLarge);
  });

  it("refuses an event whose data lines add up past the limit", () => {
    const p = new SseParser();
    const line = `data: ${"y".repeat(100_000)}\n`;
    expect(() => {
      for (let i = 0; i < 11; i++) p.push(line);
    }).toThrow(SseEventTooLarge);
  });

  it("counts per event: many events under the limit pass", () => {
    const p = new SseParser();
    const event = `data: ${"z".repeat(600_000)}\n\n`;
    for (let i = 0; i < 3; i++) expect(p.push(event)).toHaveLength(1);
  });
});

describe("readSseEvents", () => {
  const bytes = new TextEncoder().encode(FIXTURE);

  it("decodes UTF-8 split across chunks at any byte", async () => {
    for (let i = 1; i < bytes.length; i++) {
      expect(await collect(byteStream(bytes, [i])), `byte split at ${i}`).toEqual(EXPECTED);
    }
  });

  it("works one byte per chunk", async () => {
    const cuts = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
    expect(await collect(byteStream(bytes, cuts))).toEqual(EXPECTED);
  });

  it("reads a Node stream (an http response) the same way", async () => {
    const chunks = [bytes.slice(0, 7), bytes.slice(7, 30), bytes.slice(30)];
    expect(await collect(Readable.from(chunks))).toEqual(EXPECTED);
  });

  it("destroys a Node stream when the consumer stops early (the connection is released)", async () => {
    const body = Readable.from((function* () {
      for (;;) yield new TextEncoder().encode("data: x\n\n");
    })());
    for await (const ev of readSseEvents(body)) {
      expect(ev.data).toBe("x");
      break;
    }
    expect(body.destroyed).toBe(true);
  });

  it("cancels the underlying stream when the consumer stops early", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new TextEncoder().encode("data: x\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const ev of readSseEvents(stream)) {
      expect(ev.data).toBe("x");
      break;
    }
    expect(cancelled).toBe(true);
  });
});
