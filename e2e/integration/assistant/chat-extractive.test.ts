import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/client";
import { readSse, SAMPLE_CHUNKS, seedIndexedFile } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

describe("chat stream with the built-in extractive engine", () => {
  let app: App;
  let c: Client;
  let kb: string;
  let fileId: string;
  const chat = (body: Record<string, unknown>, kbId = kb) =>
    c.request("POST", `/v1/knowledges/${kbId}/assistant/chat/stream`, body);

  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "local" });
    c = new Client(app.baseUrl);
    kb = (await c.json<{ id: string }>("POST", "/v1/knowledges", { name: "政策库" })).data.id;
    fileId = await seedIndexedFile(kb, "智慧城市政策.pdf", SAMPLE_CHUNKS);
  });
  afterAll(() => app.close());

  it("streams the events in order with the specified fields and headers", async () => {
    const res = await chat({ message: "智慧城市政策的实施范围是什么？" });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    const { events } = await readSse(res);
    const names = events.map((e) => e.event);
    expect(names.slice(0, 4)).toEqual(["start", "retrieval", "retrieval", "references"]);
    expect(names.at(-1)).toBe("done");
    expect(names.filter((n) => n === "delta").length).toBeGreaterThan(1);
    const firstDelta = names.indexOf("delta");
    // Related questions, when there are any, follow the answer (each is checked in its own test).
    if (names.includes("related_questions")) expect(names.indexOf("related_questions")).toBeGreaterThan(firstDelta);

    const start = events[0]!.data;
    expect(start).toHaveProperty("conversation_id");
    expect(start).toHaveProperty("message_id");
    expect(events[1]!.data).toEqual({ status: "searching", query: "智慧城市政策的实施范围是什么？" });
    const done1 = events[2]!.data as { status: string; hit_count: number; sources: Array<{ source_type: string; status: string; count: number }> };
    expect(done1.status).toBe("done");
    expect(done1.hit_count).toBeGreaterThan(0);
    expect(done1.sources[0]).toMatchObject({ status: "ok" });

    const refs = (events[3]!.data as { items: Array<Record<string, unknown>> }).items;
    const first = refs[0]!;
    for (const key of ["ref_id", "index", "file_id", "file_name", "page_start", "page_end", "heading_path", "quote", "score", "chunk_id", "source_type", "source_id", "source_uri", "source_name"]) {
      expect(first).toHaveProperty(key);
    }
    expect(first).toMatchObject({ ref_id: "ref_1", index: 1, file_id: fileId, file_name: "智慧城市政策.pdf", page_start: 3, heading_path: "第二章 / 政策要求" });
    expect(first.score as number).toBeGreaterThanOrEqual(0.5);
    expect(first.score as number).toBeLessThanOrEqual(1);

    const answer = events.filter((e) => e.event === "delta").map((e) => e.data.text).join("");
    // The engine is named by `done` (and the stored message), not by a line in the text: the UI
    // says it once, in its own language.
    expect(answer).not.toMatch(/抽取式|extractive/i);
    expect(answer).toContain("地级市");
    expect(answer).toMatch(/\[1\]/);
    // A cited reference quotes the sentence the answer takes from it (the card shows it, the
    // viewer highlights it), not the passage's first 300 characters.
    for (const n of new Set([...answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])))) {
      const quote = refs.find((r) => r.index === n)!.quote as string;
      expect(answer).toContain(quote.split(/(?<=[。！？])/)[0]!);
    }
    const done = events.at(-1)!.data;
    expect(done).toMatchObject({ message_id: start.message_id, finish_reason: "stop", engine: "extractive" });
    expect(done.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });

  it("answers in English for an English question", async () => {
    const { events } = await readSse(await chat({ message: "How long is the battery warranty?" }));
    const answer = events.filter((e) => e.event === "delta").map((e) => e.data.text).join("");
    expect(answer).toMatch(/12 months/);
    expect(events.at(-1)!.data).toMatchObject({ engine: "extractive" });
  });

  it("ends with NO_RELEVANT_CONTEXT in grounded mode when nothing matches, and saves both messages", async () => {
    const res = await chat({ message: "量子引力的弦论解释" });
    const { events } = await readSse(res);
    expect(events.map((e) => e.event)).toEqual(["start", "retrieval", "retrieval", "error"]);
    expect(events.at(-1)!.data.code).toBe("NO_RELEVANT_CONTEXT");
    const conv = events[0]!.data.conversation_id as string;
    const msgs = await c.json<{ items: Array<{ role: string; finish_reason: string | null; content: string }> }>(
      "GET",
      `/v1/knowledges/${kb}/assistant/conversations/${conv}/messages`,
    );
    expect(msgs.data.items.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(msgs.data.items[1]!.finish_reason).toBe("no_context");
  });

  it("keeps only hits scoring at least min_score", async () => {
    const refsOf = async (min_score: number) => {
      const { events } = await readSse(await chat({ message: "智慧城市政策的实施范围是什么？", answer_mode: "references_only", min_score }));
      return (events.find((e) => e.event === "references")!.data as { items: Array<{ score: number }> }).items;
    };
    const all = await refsOf(0);
    expect(all.length).toBeGreaterThan(1);
    // References carry scores rounded to 3 decimals: cut in the middle of the widest gap between
    // two of them, so rounding cannot put a hit on the wrong side.
    const scores = all.map((r) => r.score).sort((a, b) => a - b);
    let cut = NaN;
    let widest = 0;
    for (let i = 1; i < scores.length; i++) {
      if (scores[i]! - scores[i - 1]! > widest) [widest, cut] = [scores[i]! - scores[i - 1]!, (scores[i]! + scores[i - 1]!) / 2];
    }
    expect(widest).toBeGreaterThan(0.002);
    const kept = await refsOf(cut);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(all.length);
    expect(kept.every((r) => r.score >= cut)).toBe(true);
    expect(kept.length).toBe(all.filter((r) => r.score >= cut).length);
    // Above every score: grounded mode has nothing to answer from.
    const none = await readSse(await chat({ message: "智慧城市政策的实施范围是什么？", min_score: 1 }));
    expect(none.events.at(-1)!.data.code).toBe("NO_RELEVANT_CONTEXT");
  });

  it("references_only returns references and done without deltas; empty when nothing matches", async () => {
    const hit = await readSse(await chat({ message: "市场规模", answer_mode: "references_only" }));
    expect(hit.events.map((e) => e.event)).toEqual(["start", "retrieval", "retrieval", "references", "done"]);
    const miss = await readSse(await chat({ message: "量子引力", answer_mode: "references_only" }));
    expect(miss.events.map((e) => e.event)).toEqual(["start", "retrieval", "retrieval", "references", "done"]);
    expect((miss.events[3]!.data as { items: unknown[] }).items).toEqual([]);
  });

  it("creative mode says plainly that the KB had no basis", async () => {
    const { events } = await readSse(await chat({ message: "量子引力", answer_mode: "creative" }));
    const answer = events.filter((e) => e.event === "delta").map((e) => e.data.text).join("");
    expect(answer).toContain("当前知识库未检索到足够依据");
    expect(events.at(-1)!.event).toBe("done");
  });

  it("validates every field with its error code", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ message: "" }, "MESSAGE_EMPTY"],
      [{ message: "   \n " }, "MESSAGE_EMPTY"],
      [{ message: "长".repeat(2001) }, "MESSAGE_TOO_LONG"],
      [{ message: "ok", top_k: 0 }, "INVALID_PARAMS"],
      [{ message: "ok", top_k: 21 }, "INVALID_PARAMS"],
      [{ message: "ok", top_k: "8" }, "INVALID_PARAMS"],
      [{ message: "ok", answer_mode: "poetry" }, "INVALID_PARAMS"],
      [{ message: "ok", history_limit: -1 }, "INVALID_PARAMS"],
      [{ message: "ok", min_score: 2 }, "INVALID_PARAMS"],
      [{ message: "ok", surprise: 1 }, "INVALID_PARAMS"],
      [{ message: 5 }, "INVALID_PARAMS"],
      [{ message: "ok", file_ids: ["00000000-0000-0000-0000-000000000000"] }, "FILE_NOT_IN_KNOWLEDGE"],
      [{ message: "ok", conversation_id: "00000000-0000-0000-0000-000000000000" }, "CONVERSATION_NOT_FOUND"],
      [{ message: "ok", external_knowledge_refs: [{ provider: "wiki", mode: "explicit", id: "http://10.0.0.1/x", target_type: "document" }] }, "INVALID_PARAMS"],
    ];
    for (const [body, code] of cases) {
      const r = await c.json("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, body);
      expect(r.code, JSON.stringify(body).slice(0, 80)).toBe(code);
    }
  });

  it("refuses KBs that are empty or not ready, and files that are not searchable", async () => {
    const empty = (await c.json<{ id: string }>("POST", "/v1/knowledges", { name: "空库" })).data.id;
    expect((await c.json("POST", `/v1/knowledges/${empty}/assistant/chat/stream`, { message: "hi" })).code).toBe("KNOWLEDGE_EMPTY");
    const pending = await seedIndexedFile(empty, "pending.md", [{ content: "x" }], "parsing");
    expect((await c.json("POST", `/v1/knowledges/${empty}/assistant/chat/stream`, { message: "hi" })).code).toBe("KNOWLEDGE_NOT_READY");
    const other = await seedIndexedFile(kb, "later.md", [{ content: "y" }], "indexing");
    expect((await c.json("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, { message: "hi", file_ids: [other] })).code).toBe("FILE_NOT_SEARCHABLE");
    // A file of another KB is foreign to this one.
    expect((await c.json("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, { message: "hi", file_ids: [pending] })).code).toBe("FILE_NOT_IN_KNOWLEDGE");
  });

  it("restricts retrieval to file_ids", async () => {
    const other = await seedIndexedFile(kb, "manual.md", [{ content: "智慧城市 实施范围 在手册中也被提到。" }]);
    const { events } = await readSse(await chat({ message: "智慧城市实施范围", file_ids: [other] }));
    const refs = (events.find((e) => e.event === "references")!.data as { items: Array<{ file_id: string }> }).items;
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.every((r) => r.file_id === other)).toBe(true);
  });

  it("continues a conversation, lists it, keeps reference snapshots, and deletes it", async () => {
    const first = await readSse(await chat({ message: "智慧城市市场规模有多大？" }));
    const conv = first.events[0]!.data.conversation_id as string;
    const second = await readSse(await chat({ message: "同比增长多少？", conversation_id: conv }));
    expect(second.events[0]!.data.conversation_id).toBe(conv);

    const list = await c.json<{ items: Array<{ id: string; title: string; message_count: number }> }>("GET", `/v1/knowledges/${kb}/assistant/conversations?page=1&page_size=50`);
    const item = list.data.items.find((x) => x.id === conv)!;
    expect(item.title).toBe("智慧城市市场规模有多大？");
    expect(item.message_count).toBe(4);
    const msgs = await c.json<{ items: Array<{ role: string; references: Array<{ file_name: string }>; engine: string | null }> }>(
      "GET",
      `/v1/knowledges/${kb}/assistant/conversations/${conv}/messages`,
    );
    expect(msgs.data.items.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(msgs.data.items[1]!.references[0]?.file_name, JSON.stringify(msgs.data.items[1])).toBe("智慧城市政策.pdf");
    expect(msgs.data.items[1]!.engine).toBe("extractive");

    expect((await c.json("DELETE", `/v1/knowledges/${kb}/assistant/conversations/${conv}`)).code).toBe(0);
    expect((await c.json("GET", `/v1/knowledges/${kb}/assistant/conversations/${conv}/messages`)).code).toBe("CONVERSATION_NOT_FOUND");
  });

  it("pages conversations (latest activity first) and their messages (oldest first)", async () => {
    const kb2 = (await c.json<{ id: string }>("POST", "/v1/knowledges", { name: "分页库" })).data.id;
    await seedIndexedFile(kb2, "智慧城市政策.pdf", SAMPLE_CHUNKS);
    const ask = async (message: string, conversation_id?: string) =>
      (await readSse(await chat({ message, ...(conversation_id ? { conversation_id } : {}) }, kb2))).events[0]!.data.conversation_id as string;
    const a = await ask("智慧城市市场规模有多大？");
    const b = await ask("智慧城市政策的实施范围是什么？");
    const d = await ask("智慧城市建设的目标是什么？");
    await ask("同比增长多少？", a); // a becomes the most recently active

    type Page<T> = { items: T[]; total: number; page: number; page_size: number };
    const list = (q: string) => c.json<Page<{ id: string }>>("GET", `/v1/knowledges/${kb2}/assistant/conversations?${q}`);
    const p1 = await list("page=1&page_size=2");
    const p2 = await list("page=2&page_size=2");
    expect(p1.data).toMatchObject({ total: 3, page: 1, page_size: 2 });
    expect(p1.data.items.map((x) => x.id)).toEqual([a, d]);
    expect(p2.data.items.map((x) => x.id)).toEqual([b]);
    expect((await list("page=1&page_size=101")).code).toBe("INVALID_PARAMS");
    expect((await list("page=0")).code).toBe("INVALID_PARAMS");

    const messages = (q: string) => c.json<Page<{ role: string; content: string }>>("GET", `/v1/knowledges/${kb2}/assistant/conversations/${a}/messages?${q}`);
    const m1 = await messages("page=1&page_size=3");
    const m2 = await messages("page=2&page_size=3");
    expect(m1.data.total).toBe(4);
    expect(m1.data.items.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(m1.data.items[0]!.content).toBe("智慧城市市场规模有多大？");
    expect(m2.data.items.map((m) => m.role)).toEqual(["assistant"]);
    expect((await messages("page_size=201")).code).toBe("INVALID_PARAMS");
  });

  it("reports bootstrap status", async () => {
    const b = await c.json<{ assistant_status: string; input_enabled: boolean; max_question_length: number; knowledge: { ready_file_count: number } }>(
      "GET",
      `/v1/knowledges/${kb}/assistant/bootstrap`,
    );
    expect(b.data).toMatchObject({ assistant_status: "ready", input_enabled: true, max_question_length: 200 });
    expect(b.data.knowledge.ready_file_count).toBeGreaterThan(0);
  });

  it("suggests only related questions the knowledge base answers, each from a passage the answer did not cite", async () => {
    const faqKb = (await c.json<{ id: string }>("POST", "/v1/knowledges", { name: "退款库" })).data.id;
    await seedIndexedFile(faqKb, "常见问题.md", [
      { content: "问：购买后多少天内可以申请全额退款？\n答：购买后 14 天内可以申请全额退款。", headingPath: "常见问题 / 全额退款" },
      { content: "问：退款多久能到账？\n答：退款审核通过后 5 个工作日内原路退回。", headingPath: "常见问题 / 退款到账" },
      { content: "发票在订单完成后由财务统一开具，电子发票发送到下单邮箱。", headingPath: "发票" },
    ]);
    const { events } = await readSse(await chat({ message: "购买后多少天内可以申请全额退款？" }, faqKb));
    const items = (events.find((e) => e.event === "related_questions")?.data as { items: string[] } | undefined)?.items ?? [];
    expect(items).toContain("退款多久能到账？");
    expect(items).not.toContain("购买后多少天内可以申请全额退款？");
    // Each suggestion, asked, is answered from the KB (no NO_RELEVANT_CONTEXT).
    for (const q of items) {
      const asked = await readSse(await chat({ message: q }, faqKb));
      expect(asked.events.at(-1)!.event, q).toBe("done");
      expect((asked.events.find((e) => e.event === "references")!.data as { items: unknown[] }).items.length, q).toBeGreaterThan(0);
    }
  });

  it("a reference into a chunk spanning pages names the page of its quoted sentence (page marks stored with the chunk)", async () => {
    const pdfKb = (await c.json<{ id: string }>("POST", "/v1/knowledges", { name: "灯塔" })).data.id;
    const content = "The keeper lights the lamp at dusk.\nThe Rotholm lighthouse was built in 1872.\nVisitors may climb the tower in summer.";
    await seedIndexedFile(pdfKb, "lighthouse.pdf", [
      { content, pageStart: 1, pageEnd: 3, pageMarks: [[0, 1], [content.indexOf("The Rotholm"), 2], [content.indexOf("Visitors"), 3]] },
    ]);
    const stored = await (await getDb()).$queryRawUnsafe<{ page_marks: unknown }[]>(`SELECT page_marks FROM chunks WHERE knowledge_id = $1`, pdfKb);
    expect(stored[0]!.page_marks).toEqual([[0, 1], [36, 2], [78, 3]]);
    const { events } = await readSse(await chat({ message: "When was the Rotholm lighthouse built?" }, pdfKb));
    const ref = (events.find((e) => e.event === "references")!.data as { items: Array<{ page_start: number; page_end: number; quote: string }> }).items[0]!;
    expect(ref.quote).toContain("Rotholm lighthouse was built in 1872");
    expect([ref.page_start, ref.page_end]).toEqual([2, 2]);
  });

  it("answers an overview question with the KB's files and their headings, each cited by its first passage", async () => {
    const { events } = await readSse(await chat({ message: "这个知识库主要包含哪些内容？" }));
    expect(events.at(-1)!.event).toBe("done");
    const answer = events.filter((e) => e.event === "delta").map((e) => e.data.text).join("");
    expect(answer).toContain("智慧城市政策.pdf");
    expect(answer).toMatch(/第二章.*第三章.*Warranty.*Troubleshooting/);
    expect(answer).toMatch(/\[1\]/);
    const refs = (events.find((e) => e.event === "references")!.data as { items: Array<{ file_id: string }> }).items;
    // One reference per file listed (other tests here add files to this KB).
    expect(refs[0]!.file_id).toBe(fileId);
    expect(refs).toHaveLength(answer.split("\n- **").length - 1);
  });
});

