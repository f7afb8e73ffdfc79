import { describe, expect, it, vi } from "vitest";
import { createSseStream } from "./sse-writer";

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const chunks: string[] = [];
  const dec = new TextDecoder();
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(dec.decode(value));
  }
}

describe("createSseStream", () => {
  it("sends the events of one synchronous burst as one chunk, in order, and later ones separately", async () => {
    const { stream, writer } = createSseStream();
    const read = readAll(stream);
    writer.send("start", { id: 1 });
    writer.send("retrieval", { status: "searching" });
    await new Promise((r) => setTimeout(r, 5));
    writer.send("done", { ok: true });
    writer.close();
    const chunks = await read;
    expect(chunks).toEqual([
      'event: start\ndata: {"id":1}\n\nevent: retrieval\ndata: {"status":"searching"}\n\n',
      'event: done\ndata: {"ok":true}\n\n',
    ]);
  });

  it("close flushes what is pending; nothing is sent after close", async () => {
    const { stream, writer } = createSseStream();
    const read = readAll(stream);
    writer.send("delta", { text: "a" });
    writer.close();
    writer.send("delta", { text: "late" });
    expect((await read).join("")).toBe('event: delta\ndata: {"text":"a"}\n\n');
    expect(writer.closed).toBe(true);
  });

  it("a cancelled stream fires clientGone and drops later events", async () => {
    const { stream, writer } = createSseStream();
    await stream.cancel();
    expect(writer.clientGone.aborted).toBe(true);
    expect(() => writer.send("delta", { text: "x" })).not.toThrow();
  });

  it("sends a comment heartbeat only while the stream is quiet", async () => {
    vi.useFakeTimers();
    try {
      const { stream, writer } = createSseStream(1_000);
      const read = readAll(stream);
      // Busy: an event every 400 ms for 4 s, so no heartbeat is due.
      for (let i = 0; i < 10; i++) {
        writer.send("delta", { text: String(i) });
        await vi.advanceTimersByTimeAsync(400);
      }
      // Quiet for 3.5 s: a heartbeat every second.
      await vi.advanceTimersByTimeAsync(3_500);
      writer.close();
      const chunks = await read;
      const pings = chunks.filter((c) => c.startsWith(":"));
      expect(chunks.slice(0, 10).every((c) => c.startsWith("event: delta"))).toBe(true);
      expect(pings.length).toBe(3);
      for (const p of pings) expect(p).toMatch(/^: ping \d+\n\n$/);
    } finally {
      vi.useRealTimers();
    }
  });
});
