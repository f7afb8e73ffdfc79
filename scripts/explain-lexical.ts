// Profiles retrieval_lexical_search on an existing index: times every query through the function,
// then EXPLAIN ANALYZEs the function's body (parameters inlined as literals) for the slowest ones.
//   node --conditions=react-server --import tsx scripts/explain-lexical.ts --db DIR --kb-name NAME --dataset DIR [--top N]
import { readFileSync } from "node:fs";
import path from "node:path";
import { openDatabase } from "@/lib/db/client";
import { lexicalSearch, BM25_K1, BM25_B, DEFAULT_POSTINGS_CAP, NEGLIGIBLE_SHARE, CONTEXT_WEIGHT, CONTEXT_WINDOW } from "@/lib/retrieval/lexical";
import { tokenize } from "@/lib/retrieval/text/tokenize";

const argv = process.argv.slice(2);
const arg = (n: string) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const dir = arg("db")!;
const kbName = arg("kb-name")!;
const dataset = arg("dataset")!;
const top = Number(arg("top") ?? 3);
const limitQ = Number(arg("limit") ?? 300);

const lit = (v: unknown, type: string): string => {
  if (v === null || v === undefined) return `NULL::${type}`;
  if (Array.isArray(v)) return `ARRAY[${v.map((x) => (typeof x === "number" ? String(x) : `'${String(x).replace(/'/g, "''")}'`)).join(",")}]::${type}`;
  if (typeof v === "number") return `${v}::${type}`;
  return `'${String(v).replace(/'/g, "''")}'::${type}`;
};

async function main() {
  const h = await openDatabase({ dataDir: dir });
  const db = h.prisma;
  const kb = (await db.knowledge.findFirst({ where: { name: kbName } }))!.id;
  const queries = readFileSync(path.join(dataset, "queries.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { id: string; text: string }).slice(0, limitQ);
  const times: { q: string; ms: number; tokens: string[]; read: { uncapped: number; capped: number } }[] = [];
  for (const round of [0, 1]) {
    for (const q of queries) {
      const tokens = tokenize(q.text);
      const t = performance.now();
      const r = await lexicalSearch(db, { knowledgeIds: [kb], tokens, limit: 16 });
      if (round) times.push({ q: q.text, ms: performance.now() - t, tokens, read: r.postingsRead });
    }
  }
  const s = [...times].sort((a, b) => a.ms - b.ms);
  const p = (x: number) => s[Math.min(s.length - 1, Math.ceil((x / 100) * s.length) - 1)]!.ms.toFixed(1);
  console.log(`queries ${s.length}: p50 ${p(50)} ms, p95 ${p(95)} ms, max ${s.at(-1)!.ms.toFixed(1)} ms`);
  const corr = s.map((x) => [x.ms, x.read.uncapped, x.read.capped]);
  console.log("slowest 15 (ms, uncapped read, capped read, tokens):");
  for (const x of s.slice(-15)) console.log(`  ${x.ms.toFixed(1)}  ${x.read.uncapped}  ${x.read.capped}  ${x.tokens.join("/")}`);
  console.log(`mean postings read: uncapped ${(corr.reduce((a, c) => a + c[1]!, 0) / corr.length).toFixed(0)}, capped ${(corr.reduce((a, c) => a + c[2]!, 0) / corr.length).toFixed(0)}`);
  const src = (await db.$queryRawUnsafe<{ src: string }[]>(`SELECT prosrc AS src FROM pg_proc WHERE proname = 'retrieval_lexical_search'`))[0]!.src;
  const body = src.replace(/^\s*BEGIN\s*RETURN QUERY/i, "").replace(/;\s*END;\s*$/i, "");
  for (const x of s.slice(-top)) {
    const qtf = new Map<string, number>();
    for (const t of x.tokens) qtf.set(t, (qtf.get(t) ?? 0) + 1);
    const params = [
      lit([kb], "text[]"), lit([...qtf.keys()], "text[]"), lit([...qtf.values()], "int[]"), lit(BM25_K1, "float8"), lit(BM25_B, "float8"),
      lit(16, "int"), lit(DEFAULT_POSTINGS_CAP, "int"), lit(100, "int"), lit(null, "text[]"), lit("success", "text"), lit(0, "float8"),
      lit(NEGLIGIBLE_SHARE, "float8"), lit(CONTEXT_WEIGHT, "float8"), lit(CONTEXT_WINDOW, "int"),
    ];
    const sql = body.replace(/\$(\d+)/g, (_, n: string) => `(${params[Number(n) - 1]})`);
    const df = await db.$queryRawUnsafe<{ term: string; df: number }[]>(`SELECT term, df::int FROM retrieval_term_stats WHERE knowledge_id = $1 AND term = ANY($2::text[])`, kb, [...qtf.keys()]);
    console.log(`\n=== ${x.ms.toFixed(1)} ms: ${x.q}\n dfs: ${df.map((d) => `${d.term}:${d.df}`).join(" ")}`);
    const plan = await db.$queryRawUnsafe<{ "QUERY PLAN": string }[]>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`);
    console.log(plan.map((r) => r["QUERY PLAN"]).join("\n"));
  }
  await h.close();
}
void main();
