// Issue 20 item 6: every example question of the welcome card, in both UI languages, is asked
// over the real chat route of the seeded sample KB (prisma/sample, through the real parsers and
// ingestion jobs) with the default extractive engine, and each answer must be grounded: it ends
// with `done`, has references, and its first sentence holds the fact the sample files give.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { en, zh, type MessageKey } from "@/components/i18n/dictionary";
import { EXAMPLE_KEYS } from "@/components/assistant/welcome";
import { readSse } from "../../support/seed";
import { Client, startIntegrationApp } from "../../support/test-env";

type App = Awaited<ReturnType<typeof startIntegrationApp>>;

/** The fact each example's first sentence must hold, from the sample files. */
const EXPECTED: Record<"zh" | "en", Partial<Record<MessageKey, string>>> = {
  zh: {
    "assistant.example1": "3 个可检索的文件", // the overview: the KB's outline
    "assistant.example2": "4 核 CPU", // 云笺产品手册.pdf
    "assistant.example3": "3,150 家", // 2025Q2运营报告.docx
    "assistant.example4": "30 天内", // 云笺产品手册.pdf
  },
  en: {
    "assistant.example1": "3 searchable files",
    "assistant.example2": "valid for 7 days", // admin-guide.md
    "assistant.example3": "14 days",
    "assistant.example4": "180 days in the standard plan",
  },
};

/** The answer's first sentence (or first line, for the overview's list), without Markdown emphasis. */
function firstSentence(answer: string): string {
  const text = answer.replace(/\*\*/g, "").trim();
  const end = text.search(/[。！？!?\n]|\.(?=\s|$)/);
  return end < 0 ? text : text.slice(0, end + 1);
}

describe("welcome example questions on the sample KB (extractive engine)", () => {
  let app: App;
  let c: Client;
  let kb: string;

  beforeAll(async () => {
    app = await startIntegrationApp({ AUTH_MODE: "local" });
    c = new Client(app.baseUrl);
    // Seeded as on a first start (boot's seedLocalOwner), then its ingestion jobs run.
    const { ensureLocalOwner } = await import("@/lib/auth/session");
    const { seedSampleKnowledge } = await import("@/lib/ingestion/sample");
    const { runPendingJobs } = await import("@/lib/ingestion/runner");
    const { getDb } = await import("@/lib/db/client");
    const owner = await ensureLocalOwner();
    kb = (await seedSampleKnowledge(await getDb(), { ownerId: owner.id, dataDir: app.dataDir }))!;
    await runPendingJobs({ db: await getDb(), dataDir: app.dataDir });
    const tree = await c.json<{ items: Array<{ id: string; files: Array<{ status: string }> }> }>("GET", "/v1/knowledges/tree");
    expect(tree.data.items.find((k) => k.id === kb)!.files.map((f) => f.status)).toEqual(["success", "success", "success"]);
  }, 120_000);
  afterAll(() => app?.close());

  for (const [lang, dict] of [["zh", zh], ["en", en]] as const) {
    for (const key of EXAMPLE_KEYS) {
      it(`${lang} ${key}: grounded, and the first sentence holds the sample's fact`, async () => {
        const question = dict[key];
        const expected = EXPECTED[lang][key];
        expect(expected, `no expected fact for ${lang} ${key}`).toBeTruthy();
        const { events } = await readSse(await c.request("POST", `/v1/knowledges/${kb}/assistant/chat/stream`, { message: question }));
        const last = events.at(-1)!;
        expect(`${last.event} ${JSON.stringify(last.data)}`, question).toMatch(/^done /);
        const refs = (events.find((e) => e.event === "references")!.data as { items: unknown[] }).items;
        expect(refs.length, question).toBeGreaterThan(0);
        const answer = events.filter((e) => e.event === "delta").map((e) => e.data.text as string).join("");
        expect(firstSentence(answer), `${question}\n${answer}`).toContain(expected);
        expect(answer, question).toMatch(/\[1\]/);
      });
    }
  }
});
