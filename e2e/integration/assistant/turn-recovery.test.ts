import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recoverInterruptedTurns } from "@/lib/assistant/turn-recovery";
import { turnOwner } from "@/lib/assistant/turn-owner";
import { getRawDb } from "@/lib/db/client";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

// Issue 16, item 5, the start-up recovery on its own, on PGlite and PostgreSQL: which turns a
// starting server may end, and what it leaves behind. (stream-kill.test.ts kills a real server.)
let app: App;
let kb: string;
beforeAll(async () => {
  app = await startIntegrationApp({ AUTH_MODE: "local" });
  kb = (await new Client(app.baseUrl).json<{ id: string }>("POST", "/v1/knowledges", { name: "recovery" })).data.id;
});
afterAll(() => app.close());

async function heldConversation(id: string, owner: string, partial: string | null) {
  const raw = await getRawDb();
  await raw.$executeRawUnsafe(
    `INSERT INTO knowledge_assistant_conversations (id, knowledge_id, user_id, title, message_count, active_turn_id, active_turn_at, active_turn_owner)
     VALUES ($1, $2, 'local-owner', 't', 1, 'turn-' || $1, now(), $3)`,
    id,
    kb,
    owner,
  );
  await raw.$executeRawUnsafe(`INSERT INTO knowledge_assistant_messages (id, conversation_id, role, content, created_at) VALUES ($1 || '-q', $1, 'user', '问题', now() - interval '1 second')`, id);
  if (partial !== null) {
    await raw.$executeRawUnsafe(
      `INSERT INTO knowledge_assistant_messages (id, conversation_id, role, content, finish_reason, created_at) VALUES ($1 || '-a', $1, 'assistant', $2, 'streaming', now())`,
      id,
      partial,
    );
  }
}

async function state(id: string) {
  const raw = await getRawDb();
  const [conv] = await raw.$queryRawUnsafe<Array<{ active_turn_id: string | null; message_count: number }>>(
    `SELECT active_turn_id, message_count FROM knowledge_assistant_conversations WHERE id = $1`,
    id,
  );
  const messages = await raw.$queryRawUnsafe<Array<{ role: string; content: string; finish_reason: string | null }>>(
    `SELECT role, content, finish_reason FROM knowledge_assistant_messages WHERE conversation_id = $1 ORDER BY created_at, id`,
    id,
  );
  return { held: conv!.active_turn_id !== null, count: Number(conv!.message_count), messages };
}

describe("start-up recovery of interrupted turns", () => {
  it("on a database server: ends turns of dead processes on this host, keeps live and foreign ones", async () => {
    const exited = spawnSync("true");
    const deadPid = exited.pid!;
    await heldConversation("dead-partial", `${hostname()}:${deadPid}:0badc0de`, "已经生成的一半");
    await heldConversation("dead-empty", `${hostname()}:${deadPid}:0badc0de`, null);
    await heldConversation("earlier-boot", `${hostname()}:${process.pid}:00000000`, "上次启动");
    await heldConversation("live", turnOwner(), "正在生成");
    await heldConversation("other-host", `another-host.example:${deadPid}:0badc0de`, "别的机器");

    expect(await recoverInterruptedTurns(await getRawDb(), { embedded: false })).toBe(3);

    const partial = await state("dead-partial");
    expect(partial.held).toBe(false);
    expect(partial.messages.map((m) => [m.role, m.content, m.finish_reason])).toEqual([
      ["user", "问题", null],
      ["assistant", "已经生成的一半", "interrupted"],
    ]);
    expect(partial.count).toBe(2);
    const empty = await state("dead-empty");
    expect(empty.held).toBe(false);
    expect(empty.messages.map((m) => [m.role, m.content, m.finish_reason])).toEqual([
      ["user", "问题", null],
      ["assistant", "", "interrupted"],
    ]);
    expect((await state("earlier-boot")).held).toBe(false);
    for (const id of ["live", "other-host"]) {
      const s = await state(id);
      expect(s.held).toBe(true);
      expect(s.messages.at(-1)!.finish_reason).toBe("streaming");
    }
  });

  it("on the embedded database: every held turn is a dead process's", async () => {
    await recoverInterruptedTurns(await getRawDb(), { embedded: true });
    for (const id of ["live", "other-host"]) {
      const s = await state(id);
      expect(s.held).toBe(false);
      expect(s.messages.at(-1)!.finish_reason).toBe("interrupted");
    }
  });
});
