import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";

// Federation (issue 18, defect 1): two real app instances, two `next start` processes on two data
// directories. Instance B has instance A configured as an external provider (three lines of env)
// with an API token created through A's real API; B's assistant answers from A's document with
// A's references, and the provenance says they came from A. Ports stay in this suite's range
// (7700-7799); loopback provider URLs need the test-only allowance on B.
const PORT_A = 7741;
const PORT_B = 7742;

function startInstance(port: number, env: Record<string, string>): ChildProcess {
  const child = spawn("bash", ["scripts/start.sh", "--no-build"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      SEED_SAMPLE: "false",
      DATA_DIR: mkdtempSync(path.join(tmpdir(), `ka-fed-${port}-`)),
      ...env,
    },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  return child;
}

async function waitHealthy(base: string) {
  await expect
    .poll(async () => (await fetch(`${base}/api/health`).catch(() => null))?.status ?? 0, { timeout: 90_000, intervals: [500] })
    .toBe(200);
}

function stop(child: ChildProcess | undefined) {
  // The whole process group: bash and the node server it execs.
  if (child?.pid) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      /* already gone */
    }
  }
}

class Api {
  private cookie = "";
  constructor(readonly base: string) {}
  async call<T>(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
    const h: Record<string, string> = { ...headers };
    if (this.cookie) h.cookie = this.cookie;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      h["content-type"] = "application/json";
    }
    const res = await fetch(this.base + p, { method, headers: h, body: payload });
    const set = res.headers.getSetCookie().find((c) => c.startsWith("ka_session="));
    if (set) this.cookie = set.split(";")[0]!;
    const type = res.headers.get("content-type") ?? "";
    if (type.startsWith("text/event-stream")) return { sse: await res.text() } as unknown as { code: 0 | string; data: T };
    return (await res.json()) as { code: 0 | string; data: T };
  }
  async upload(kb: string, name: string, text: string) {
    const form = new FormData();
    form.append("files", new Blob([text], { type: "text/markdown" }), name);
    const up = await this.call<{ files: Array<{ file: { id: string } }> }>("POST", `/v1/knowledges/${kb}/files`, form);
    expect(up.code).toBe(0);
    const id = up.data.files[0]!.file.id;
    await expect
      .poll(async () => (await this.call<{ items: Array<{ id: string; status: string }> }>("GET", `/v1/knowledges/${kb}/files`)).data.items.find((f) => f.id === id)?.status, {
        timeout: 60_000,
      })
      .toBe("success");
    return id;
  }
}

function sseEvents(text: string) {
  return text
    .split("\n\n")
    .filter((b) => b.startsWith("event:"))
    .map((b) => ({ event: /^event: (.*)$/m.exec(b)![1]!, data: JSON.parse(/^data: (.*)$/m.exec(b)![1]!) as Record<string, unknown> }));
}

test("instance B answers from instance A's documents, with A's references and provenance", async () => {
  test.setTimeout(240_000);
  let a: ChildProcess | undefined;
  let b: ChildProcess | undefined;
  try {
    a = startInstance(PORT_A, { AUTH_MODE: "password" });
    const A = new Api(`http://127.0.0.1:${PORT_A}`);
    await waitHealthy(A.base);
    expect((await A.call("POST", "/v1/auth/sign-up", { email: "a@fed.test", password: "password-a-1" })).code).toBe(0);
    // Sign-up signs nobody in (issue 16: same answer for new and taken e-mails); sign in next.
    expect((await A.call("POST", "/v1/auth/sign-in", { email: "a@fed.test", password: "password-a-1" })).code).toBe(0);
    const kbA = (await A.call<{ id: string }>("POST", "/v1/knowledges", { name: "Instance A handbook" })).data.id;
    const fileA = await A.upload(kbA, "glacier-runbook.md", "# Glacier vault\n\nThe glacier vault rotation happens every 40 days and needs the quartermaster's signature.\n");
    const token = (await A.call<{ token: string }>("POST", "/v1/api-tokens", { name: "instance B" })).data.token;
    expect(token).toBeTruthy();

    // The README's three lines: the provider, its listing, and the token in its own variable.
    b = startInstance(PORT_B, {
      AUTH_MODE: "local",
      ALLOW_LOOPBACK_PROVIDERS: "true",
      RETRIEVAL_MIN_SCORE: "0",
      EXTERNAL_PROVIDERS: JSON.stringify([
        {
          type: "http",
          key: "instance-a",
          label: "Instance A",
          url: `${A.base}/v1/provider/retrieve`,
          listUrl: `${A.base}/v1/provider/documents`,
          tokenEnv: "INSTANCE_A_TOKEN",
        },
      ]),
      INSTANCE_A_TOKEN: token,
    });
    const B = new Api(`http://127.0.0.1:${PORT_B}`);
    await waitHealthy(B.base);
    const status = await B.call<{ items: Array<{ key: string; health: string; capabilities: { list_documents: boolean } }> }>("GET", "/v1/external-sources?refresh=true");
    expect(status.data.items.find((i) => i.key === "instance-a")).toMatchObject({ health: "ready", capabilities: { list_documents: true } });
    // B browses A's KBs through A's listing (validated with A's token).
    const listed = await B.call<{ items: Array<{ id: string; name: string }> }>("GET", "/v1/external-sources/instance-a/documents");
    expect(listed.data.items).toEqual([expect.objectContaining({ id: kbA, name: "Instance A handbook" })]);

    const kbB = (await B.call<{ id: string }>("POST", "/v1/knowledges", { name: "B local" })).data.id;
    await B.upload(kbB, "b-notes.md", "# Notes\n\nInstance B keeps its own notes about the cafeteria menu.\n");

    // Bound by document, validated by A (its listing), in the first question of a conversation.
    const ask = (body: Record<string, unknown>) => B.call("POST", `/v1/knowledges/${kbB}/assistant/chat/stream`, body) as unknown as Promise<{ sse: string }>;
    const first = sseEvents(
      (
        await ask({
          message: "How often does the glacier vault rotation happen?",
          external_knowledge_refs: [{ provider: "instance-a", id: kbA, target_type: "document", document_id: fileA }],
        })
      ).sse,
    );
    const done = first.filter((e) => e.event === "retrieval").at(-1)!.data;
    expect(done.sources).toEqual(expect.arrayContaining([{ source_type: "instance-a", status: "ok", count: 1 }]));
    const refs = first.find((e) => e.event === "references")!.data.items as Array<Record<string, unknown>>;
    const fromA = refs.find((r) => r.source_type === "instance-a")!;
    expect(fromA).toMatchObject({ source_id: fileA, source_name: "glacier-runbook.md", source_uri: `ext://instance-a/${fileA}`, metadata: expect.objectContaining({ knowledge_id: kbA, file_id: fileA }) });
    expect(fromA.quote).toContain("every 40 days");
    const answer = first.filter((e) => e.event === "delta").map((e) => e.data.text).join("");
    expect(answer).toContain("40");
    expect(first.at(-1)!.event).toBe("done");

    const conv = first[0]!.data.conversation_id as string;
    const bound = await B.call<{ items: Array<Record<string, unknown>> }>("GET", `/v1/knowledges/${kbB}/assistant/conversations/${conv}/external-knowledge-refs`);
    expect(bound.data.items).toEqual([expect.objectContaining({ provider: "instance-a", id: kbA, name: "Instance A handbook", target_type: "document", document_id: fileA, target_name: "glacier-runbook.md" })]);

    // A revokes nothing but stops: B's turn still answers from its own KB, A's source fails alone.
    stop(a);
    a = undefined;
    await expect.poll(async () => (await fetch(`${A.base}/api/health`).catch(() => null)) === null, { timeout: 30_000 }).toBe(true);
    const later = sseEvents((await ask({ message: "What does instance B keep notes about the cafeteria menu?", conversation_id: conv })).sse);
    const laterDone = later.filter((e) => e.event === "retrieval").at(-1)!.data.sources as Array<{ source_type: string; status: string }>;
    expect(laterDone.find((s) => s.source_type === "knowledge-base")!.status).toBe("ok");
    expect(laterDone.find((s) => s.source_type === "instance-a")!.status).toBe("error");
    expect(later.at(-1)!.event).toBe("done");
  } finally {
    stop(a);
    stop(b);
  }
});
