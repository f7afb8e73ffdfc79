import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSse, SAMPLE_CHUNKS, seedIndexedFile } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;
interface Summary {
  id: string;
  title: string;
  message_count: number;
}
interface Stored {
  id: string;
  role: string;
  content: string;
  feedback: { rating: string; comment: string | null } | null;
}

// Issue 20 item 12 over HTTP: keyset paging and search of the conversation list, rename,
// feedback stored with the message and listed for owners/editors, and edit-and-resend /
// regenerate as a truncated branch. Two users and a viewer, in password mode.
describe("conversation list, rename, feedback and edit-and-resend", () => {
  let app: App;
  let owner: Client;
  let viewer: Client;
  let stranger: Client;
  let kb: string;
  let strangerKb: string;
  const base = () => `/v1/knowledges/${kb}/assistant`;

  const ask = async (client: Client, message: string, extra: Record<string, unknown> = {}) => {
    const { events } = await readSse(await client.request("POST", `${base()}/chat/stream`, { message, ...extra }));
    const start = events[0]!.data as { conversation_id: string; message_id: string; user_message_id: string };
    // Either end stores the question and its answer (a no-context turn too).
    expect(["done", "error"], JSON.stringify(events.at(-1))).toContain(events.at(-1)!.event);
    return start;
  };
  const messages = async (client: Client, conv: string) =>
    (await client.json<{ items: Stored[] }>("GET", `${base()}/conversations/${conv}/messages`)).data.items;

  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "password" });
    owner = new Client(app.baseUrl);
    viewer = new Client(app.baseUrl);
    stranger = new Client(app.baseUrl);
    await owner.signUp({ email: "co@x.test", password: "password-o", name: "Olga Owner" });
    await viewer.signUp({ email: "cv@x.test", password: "password-v", name: "Victor Viewer" });
    await stranger.signUp({ email: "cs@x.test", password: "password-s" });
    kb = (await owner.json<{ id: string }>("POST", "/v1/knowledges", { name: "会话库" })).data.id;
    strangerKb = (await stranger.json<{ id: string }>("POST", "/v1/knowledges", { name: "S" })).data.id;
    expect((await owner.json("POST", `/v1/knowledges/${kb}/members`, { email: "cv@x.test", role: "viewer" })).code).toBe(0);
    await seedIndexedFile(kb, "智慧城市政策.pdf", SAMPLE_CHUNKS);
  });
  afterAll(() => app.close());

  it("pages the list by cursor, newest first, without repeats; a forged cursor is INVALID_PARAMS", async () => {
    const asked: string[] = [];
    for (const q of ["智慧城市政策的实施范围是什么？", "How long is the battery warranty?", "市场规模有多大？", "政策要求有哪些？", "电池保修多久？"]) {
      asked.push((await ask(owner, q, { answer_mode: "references_only" })).conversation_id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: { code: unknown; data: { items: Summary[]; next_cursor: string | null; total: number } } = await owner.json(
        "GET",
        `${base()}/conversations?page_size=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(r.code).toBe(0);
      expect(r.data.total).toBe(5);
      expect(r.data.items.length).toBeLessThanOrEqual(2);
      seen.push(...r.data.items.map((i) => i.id));
      cursor = r.data.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual([...asked].reverse());

    for (const bad of ["x", Buffer.from('{"t":"yesterday","id":"a"}').toString("base64url")]) {
      const r = await owner.json("GET", `${base()}/conversations?cursor=${bad}`);
      expect(r.code).toBe("INVALID_PARAMS");
    }
    // Another user sees none of them.
    expect((await stranger.json("GET", `${base()}/conversations`)).code).toBe("KNOWLEDGE_NOT_FOUND");
  });

  it("searches titles and message text on the server; LIKE wildcards are literal", async () => {
    const search = async (q: string) =>
      (await owner.json<{ items: Summary[]; total: number }>("GET", `${base()}/conversations?q=${encodeURIComponent(q)}`)).data;
    expect((await search("battery")).items.map((i) => i.title)).toEqual(["How long is the battery warranty?"]);
    // "地级市" is in no title, only in the stored text of an answer's question's conversation.
    const conv = (await ask(owner, "实施范围")).conversation_id;
    const found = await search("地级市");
    expect(found.items.map((i) => i.id)).toContain(conv);
    expect((await search("%")).total).toBe(0);
    expect((await search("_")).total).toBe(0);
    expect((await owner.json("GET", `${base()}/conversations?q=${encodeURIComponent("a\u0000")}`)).code).toBe("INVALID_PARAMS");
  });

  it("renames a conversation; empty, too long, NUL and foreign ids are refused", async () => {
    const conv = (await ask(owner, "市场规模", { answer_mode: "references_only" })).conversation_id;
    const name = '<script>alert("x")</script> 预算';
    const r = await owner.json<Summary>("PATCH", `${base()}/conversations/${conv}`, { title: `  ${name} ` });
    expect(r.code).toBe(0);
    expect(r.data.title).toBe(name);
    const list = (await owner.json<{ items: Summary[] }>("GET", `${base()}/conversations?q=${encodeURIComponent("预算")}`)).data.items;
    expect(list.map((i) => i.title)).toContain(name);
    for (const body of [{ title: "   " }, { title: "x".repeat(101) }, { title: "a\u0000b" }, { title: 3 }, { name: "x" }]) {
      expect((await owner.json("PATCH", `${base()}/conversations/${conv}`, body)).code, JSON.stringify(body)).toBe("INVALID_PARAMS");
    }
    expect((await owner.json("PATCH", `${base()}/conversations/${conv}`, "{not json")).code).toBe("INVALID_PARAMS");
    // The viewer may read the KB but not another member's conversation: it looks missing.
    expect((await viewer.json("PATCH", `${base()}/conversations/${conv}`, { title: "mine" })).code).toBe("CONVERSATION_NOT_FOUND");
    expect((await stranger.json("PATCH", `${base()}/conversations/${conv}`, { title: "mine" })).code).toBe("KNOWLEDGE_NOT_FOUND");
    expect((await stranger.json("PATCH", `/v1/knowledges/${strangerKb}/assistant/conversations/${conv}`, { title: "mine" })).code).toBe("CONVERSATION_NOT_FOUND");
  });

  it("stores feedback with the message and lists it for owners and editors only", async () => {
    const mine = await ask(owner, "智慧城市政策的实施范围是什么？");
    const theirs = await ask(viewer, "How long is the battery warranty?");
    const fb = (client: Client, conv: string, msg: string, body: unknown) => client.json("PUT", `${base()}/conversations/${conv}/messages/${msg}/feedback`, body);

    expect((await fb(owner, mine.conversation_id, mine.message_id, { rating: "up", comment: "  精准  " })).code).toBe(0);
    expect((await messages(owner, mine.conversation_id)).find((m) => m.id === mine.message_id)!.feedback).toEqual({ rating: "up", comment: "精准" });
    // A viewer rates answers of their own conversations.
    expect((await fb(viewer, theirs.conversation_id, theirs.message_id, { rating: "down", comment: "Too long" })).code).toBe(0);

    // Hostile and foreign inputs.
    expect((await fb(owner, mine.conversation_id, mine.user_message_id, { rating: "up" })).code).toBe("MESSAGE_NOT_FOUND");
    expect((await fb(owner, mine.conversation_id, theirs.message_id, { rating: "up" })).code).toBe("MESSAGE_NOT_FOUND");
    expect((await fb(owner, theirs.conversation_id, theirs.message_id, { rating: "up" })).code).toBe("CONVERSATION_NOT_FOUND");
    expect((await fb(stranger, mine.conversation_id, mine.message_id, { rating: "up" })).code).toBe("KNOWLEDGE_NOT_FOUND");
    for (const body of [{ rating: "meh" }, { rating: "up", comment: "x".repeat(1001) }, { rating: "up", comment: "\u0000" }, {}, { rating: "up", extra: 1 }]) {
      expect((await fb(owner, mine.conversation_id, mine.message_id, body)).code, JSON.stringify(body)).toBe("INVALID_PARAMS");
    }
    expect((await owner.json("PUT", `${base()}/conversations/${mine.conversation_id}/messages/bad%20id/feedback`, { rating: "up" })).code).toBe("INVALID_PARAMS");

    const list = await owner.json<{ items: Array<{ message_id: string; rating: string; comment: string | null; question: string; user_name: string }>; next_cursor: string | null }>(
      "GET",
      `${base()}/feedback`,
    );
    expect(list.code).toBe(0);
    expect(list.data.items.map((i) => [i.rating, i.question, i.comment, i.user_name])).toEqual([
      ["down", "How long is the battery warranty?", "Too long", "Victor Viewer"],
      ["up", "智慧城市政策的实施范围是什么？", "精准", "Olga Owner"],
    ]);
    const downs = await owner.json<{ items: Array<{ rating: string }> }>("GET", `${base()}/feedback?rating=down`);
    expect(downs.data.items.map((i) => i.rating)).toEqual(["down"]);
    const first = await owner.json<{ items: Array<{ message_id: string }>; next_cursor: string }>("GET", `${base()}/feedback?limit=1`);
    const second = await owner.json<{ items: Array<{ message_id: string }>; next_cursor: string | null }>("GET", `${base()}/feedback?limit=1&cursor=${first.data.next_cursor}`);
    expect(second.data.items[0]!.message_id).toBe(mine.message_id);
    expect(second.data.next_cursor).toBeNull();

    expect((await viewer.json("GET", `${base()}/feedback`)).code).toBe("FORBIDDEN");
    expect((await stranger.json("GET", `${base()}/feedback`)).code).toBe("KNOWLEDGE_NOT_FOUND");
    expect((await owner.json("GET", `${base()}/feedback?rating=meh`)).code).toBe("INVALID_PARAMS");

    // null withdraws the rating, and it leaves the owner's list.
    expect((await fb(viewer, theirs.conversation_id, theirs.message_id, { rating: null })).code).toBe(0);
    const after = await owner.json<{ items: Array<{ message_id: string }> }>("GET", `${base()}/feedback`);
    expect(after.data.items.map((i) => i.message_id)).toEqual([mine.message_id]);
  });

  it("edit and resend replaces the question and every later turn; the earlier ones stay", async () => {
    const t1 = await ask(owner, "智慧城市政策的实施范围是什么？");
    const conv = t1.conversation_id;
    const t2 = await ask(owner, "How long is the battery warranty?", { conversation_id: conv });
    await ask(owner, "市场规模有多大？", { conversation_id: conv });
    expect((await messages(owner, conv)).length).toBe(6);

    const edited = await ask(owner, "电池保修多久？", { conversation_id: conv, replace_from_message_id: t2.user_message_id });
    const after = await messages(owner, conv);
    expect(after.map((m) => [m.role, m.role === "user" ? m.content : ""])).toEqual([
      ["user", "智慧城市政策的实施范围是什么？"],
      ["assistant", ""],
      ["user", "电池保修多久？"],
      ["assistant", ""],
    ]);
    expect(after[1]!.id).toBe(t1.message_id);
    expect(after[3]!.id).toBe(edited.message_id);
    const summary = (await owner.json<{ items: Summary[] }>("GET", `${base()}/conversations?q=${encodeURIComponent("电池保修")}`)).data.items.find((c) => c.id === conv)!;
    expect(summary.message_count).toBe(4);

    // Regenerate: the same question again from itself; the answer is replaced.
    const again = await ask(owner, "电池保修多久？", { conversation_id: conv, replace_from_message_id: edited.user_message_id });
    const regenerated = await messages(owner, conv);
    expect(regenerated.length).toBe(4);
    expect(regenerated[3]!.id).toBe(again.message_id);
    expect(regenerated.map((m) => m.id)).not.toContain(edited.message_id);

    // An answer's id, another conversation's question, or no conversation: refused, nothing cut.
    const other = await ask(owner, "政策要求有哪些？");
    const chat = (body: Record<string, unknown>) => owner.json("POST", `${base()}/chat/stream`, { message: "x", ...body });
    expect((await chat({ conversation_id: conv, replace_from_message_id: again.message_id })).code).toBe("MESSAGE_NOT_FOUND");
    expect((await chat({ conversation_id: conv, replace_from_message_id: other.user_message_id })).code).toBe("MESSAGE_NOT_FOUND");
    expect((await chat({ replace_from_message_id: other.user_message_id })).code).toBe("INVALID_PARAMS");
    expect((await viewer.json("POST", `${base()}/chat/stream`, { message: "x", conversation_id: conv, replace_from_message_id: again.user_message_id })).code).toBe(
      "CONVERSATION_NOT_FOUND",
    );
    expect((await messages(owner, conv)).length).toBe(4);
    // The refused edits released the conversation: a next question is answered.
    await ask(owner, "市场规模", { conversation_id: conv });
  });
});
