import { describe, expect, it } from "vitest";
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
});
