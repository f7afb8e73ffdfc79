import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildFileGraph, CO_OCCURS } from "./build";
import { parseModelOutput } from "./extract-model";
import { extractEntities, extractJiebaBaseline, splitSentences } from "./extract-offline";
import { scoreNer } from "./ner-score";
import { displayName, normalizeName } from "./normalize";

const names = (text: string) => extractEntities(text).map((e) => [e.text, e.type]);

describe("offline extractor", () => {
  it("types jieba's tags and the rules' spans (person, place, organization, work, role)", () => {
    expect(names("彭小军认为，国内银行现在走的是台湾的发卡模式。")).toEqual(expect.arrayContaining([["彭小军", "person"], ["台湾", "location"]]));
    expect(names("北京国华置业有限公司的负责人介绍了《北京市公共租赁房管理办法》。")).toEqual(
      expect.arrayContaining([["北京国华置业有限公司", "organization"], ["负责人", "position"], ["《北京市公共租赁房管理办法》", "work"]]),
    );
    expect(names("项目地址位于北京市东城区王府井大街218号。")).toEqual(expect.arrayContaining([["北京市东城区王府井大街218号", "location"]]));
  });

  it("finds names jieba does not know, which its plain tags miss", () => {
    const text = "颜鲲表示同意，程阳认为市场会好转。";
    expect(extractJiebaBaseline(text)).toEqual([]);
    expect(names(text)).toEqual([["颜鲲", "person"], ["程阳", "person"]]);
  });

  it("keeps offsets into the text, skips code and punctuation runs", () => {
    const text = "运行 `config yaml` 之后，云笺公司、设计工作室都在用。";
    for (const e of extractEntities(text)) expect(text.slice(e.start, e.end)).toBe(e.text);
    expect(extractEntities(text).map((e) => e.text)).not.toContain("config");
    expect(extractEntities(text).some((e) => e.text.includes("、"))).toBe(false);
  });

  it("English: the sample guide's hand-labelled entities are found, few others", () => {
    const guide = readFileSync(path.resolve(import.meta.dirname, "../../prisma/sample/admin-guide.md"), "utf8");
    const found = buildFileGraph([{ id: "c", content: guide }]).entities.map((e) => e.name);
    const labelled = ["Yunjian", "Yunjian Workspace Administrator Guide", "SAML", "OpenID Connect", "SSO", "CIDR", "Admin"];
    expect(found).toEqual(expect.arrayContaining(labelled));
    const precision = found.filter((n) => labelled.includes(n)).length / found.length;
    expect(precision).toBeGreaterThanOrEqual(0.6);
    for (const word of ["The", "Every", "Owner", "Register Yunjian", "GB", "URL"]) expect(found).not.toContain(word);
  });

  it("splits sentences on Chinese and English ends", () => {
    const text = "云笺很好用！它支持 SSO。Then it works. And more";
    expect(splitSentences(text).map((s) => text.slice(s.start, s.end))).toEqual(["云笺很好用！", "它支持 SSO。", "Then it works.", "And more"]);
  });
});

describe("normalization and merging", () => {
  it("folds width, case, spaces and surrounding punctuation into one key", () => {
    expect(displayName("  《云笺》 ")).toBe("云笺");
    expect(displayName("ＹＵＮＪＩＡＮ")).toBe("YUNJIAN");
    for (const v of ["Yunjian Cloud", "yunjian  cloud", "ＹＵＮＪＩＡＮ Cloud", "“Yunjian Cloud”"]) expect(normalizeName(v)).toBe("yunjiancloud");
  });

  it("merges one name's spellings into one entity with aliases, and counts co-occurrence per sentence", () => {
    const g = buildFileGraph([
      { id: "c1", content: "Yunjian Cloud 由星河科技有限公司开发。YUNJIAN CLOUD 支持 SSO。" },
      { id: "c2", content: "ＹＵＮＪＩＡＮ Cloud 与星河科技有限公司签约。" },
    ]);
    const y = g.entities.find((e) => e.norm === "yunjiancloud")!;
    // One entity; the most frequent spelling is its name, the others its aliases (NFKC folded).
    expect([y.name, ...y.aliases].sort()).toEqual(["YUNJIAN CLOUD", "YUNJIAN Cloud", "Yunjian Cloud"]);
    expect(g.mentions.filter((m) => m.norm === "yunjiancloud").map((m) => [m.chunkId, m.count])).toEqual([["c1", 2], ["c2", 1]]);
    const rel = g.relations.find((r) => r.relation === CO_OCCURS && [r.source, r.target].includes("yunjiancloud") && [r.source, r.target].includes("星河科技有限公司"))!;
    expect(rel.supports.map((s) => [s.chunkId, s.count])).toEqual([["c1", 1], ["c2", 1]]);
    expect(rel.source < rel.target).toBe(true);
  });

  it("keeps the pairs a file repeats, and each entity's strongest pairs, as many as the entity's mentions", () => {
    const g = buildFileGraph([{ id: "c", content: "ALPHA meets BRAVO, CHARLIE, DELTA. ALPHA meets ECHO. ALPHA meets ECHO." }]);
    const pairs = g.relations.map((r) => `${r.source}-${r.target}`).sort();
    // alpha-echo: two sentences. alpha (3 mentions) keeps its 3 strongest (echo, then bravo and
    // charlie by key); bravo, charlie and delta (1 mention each) one each, their rarer partner
    // first (PMI), ties by key. alpha-delta and charlie-delta go.
    expect(pairs).toEqual(["alpha-bravo", "alpha-charlie", "alpha-echo", "bravo-charlie", "bravo-delta"]);
    // Every entity stays, with its mentions.
    expect(g.entities.map((e) => e.norm).sort()).toEqual(["alpha", "bravo", "charlie", "delta", "echo"]);
  });

  it("admits a candidate name only when the file repeats it", () => {
    const once = buildFileGraph([{ id: "c", content: "我们使用飞书笺做记录。" }]).entities.map((e) => e.name);
    const twice = buildFileGraph([{ id: "c", content: "我们使用飞书笺做记录。飞书笺很方便。" }]).entities.map((e) => e.name);
    expect(once).not.toContain("飞书笺");
    expect(twice).toContain("飞书笺");
  });

  it("adds a model's entities and relations when both ends are in the chunk", () => {
    const g = buildFileGraph([{ id: "c", content: "云笺由星河科技有限公司开发。云笺在新加坡销售。" }], {
      model: [
        {
          chunkId: "c",
          entities: [{ name: "星河科技有限公司", type: "organization", description: "开发云笺的公司" }],
          relations: [
            { source: "星河科技有限公司", target: "新加坡", relation: "销售于", description: "" },
            { source: "星河科技有限公司", target: "火星", relation: "位于", description: "" },
          ],
        },
      ],
    });
    expect(g.entities.find((e) => e.norm === "星河科技有限公司")?.description).toBe("开发云笺的公司");
    expect(g.relations.filter((r) => r.relation !== CO_OCCURS).map((r) => [r.source, r.target, r.relation])).toEqual([["星河科技有限公司", "新加坡", "销售于"]]);
  });
});

describe("model output validation", () => {
  it("accepts the schema (also fenced) and rejects anything else", () => {
    const ok = JSON.stringify({ entities: [{ name: "云笺", type: "product", description: "" }], relations: [] });
    expect(parseModelOutput("c", ok)?.entities).toEqual([{ name: "云笺", type: "product", description: "" }]);
    expect(parseModelOutput("c", "```json\n" + ok + "\n```")).not.toBeNull();
    expect(parseModelOutput("c", JSON.stringify({ entities: [{ name: "x", type: "alien", description: "" }], relations: [] }))?.entities[0]?.type).toBe("other");
    for (const bad of ["not json", "{}", JSON.stringify({ entities: "x", relations: [] }), JSON.stringify({ entities: [{ type: "person" }], relations: [] })]) {
      expect(parseModelOutput("c", bad)).toBeNull();
    }
  });
});

describe("NER scoring", () => {
  it("exact and lenient per type and micro", () => {
    const s = scoreNer([
      {
        gold: [{ start: 0, end: 3, type: "PER" }, { start: 5, end: 7, type: "LOC" }],
        predicted: [{ start: 0, end: 3, type: "PER" }, { start: 5, end: 6, type: "LOC" }, { start: 8, end: 9, type: "ORG" }],
      },
    ]);
    expect(s.exact.micro).toMatchObject({ predicted: 3, gold: 2 });
    expect(s.exact.micro.p).toBeCloseTo(1 / 3);
    expect(s.exact.micro.r).toBeCloseTo(1 / 2);
    expect(s.lenient.micro.p).toBeCloseTo(2 / 3);
    expect(s.lenient.micro.r).toBe(1);
    expect(s.lenient.LOC.f1).toBe(1);
    expect(s.exact.LOC.f1).toBe(0);
  });
});
