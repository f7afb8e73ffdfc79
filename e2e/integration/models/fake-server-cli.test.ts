import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { streamChat } from "@/lib/models/chat";

let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill("SIGTERM");
});

describe("fake OpenAI server as a separate process", () => {
  it("prints its URL, serves streams, and can be scripted over HTTP", async () => {
    child = spawn(process.execPath, ["--import", "tsx", "e2e/support/fake-openai-server.ts", "--port", "0", "--tokens-ms", "1"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const baseUrl = await new Promise<string>((resolve, reject) => {
      let out = "";
      child!.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /listening (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child!.once("exit", (code) => reject(new Error(`exited with ${code}`)));
    });
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const origin = new URL(baseUrl).origin;
    await fetch(`${origin}/__fake/script`, { method: "POST", body: JSON.stringify({ kind: "stream", tokens: ["o", "k"] }) });
    const texts: string[] = [];
    for await (const ev of streamChat({ baseUrl, model: "m", messages: [{ role: "user", content: "hi" }] })) {
      if (ev.type === "delta") texts.push(ev.text);
    }
    expect(texts).toEqual(["o", "k"]);
    const state = await (await fetch(`${origin}/__fake/state`)).json();
    expect(state).toMatchObject({ requests: 1, cancellations: 0 });
  });
});
