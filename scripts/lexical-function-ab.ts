// A/B of two versions of retrieval_lexical_search on one existing index: the installed function and
// the one in a SQL file (created beside it under another name), alternating per query, two rounds
// (the first warms), same parameters; reports p50/p95 of each and the queries whose hits differ.
//   node --conditions=react-server --import tsx scripts/lexical-function-ab.ts --db DIR --kb-name NAME --dataset DIR --sql FILE
import { readFileSync } from "node:fs";
import path from "node:path";
import { openDatabase } from "@/lib/db/client";
import { BM25_K1, BM25_B, DEFAULT_POSTINGS_CAP, NEGLIGIBLE_SHARE, CONTEXT_WEIGHT, CONTEXT_WINDOW } from "@/lib/retrieval/lexical";
import { tokenize } from "@/lib/retrieval/text/tokenize";

const argv = process.argv.slice(2);
const arg = (n: string) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

async function main() {
  const h = await openDatabase({ dataDir: arg("db")! });
  const db = h.prisma;
  const kb = (await db.knowledge.findFirst({ where: { name: arg("kb-name")! } }))!.id;
  const queries = readFileSync(path.join(arg("dataset")!, "queries.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { text: string }).slice(0, Number(arg("limit") ?? 300));
  const sql = readFileSync(arg("sql")!, "utf8").replace(/CREATE OR REPLACE FUNCTION "retrieval_lexical_search"/, 'CREATE OR REPLACE FUNCTION "retrieval_lexical_search_ab"');
  await db.$executeRawUnsafe(sql);
  const call = (fn: string) =>
    `SELECT kind, key, a, b FROM ${fn}($1::text[], $2::text[], $3::int[], $4::float8, $5::float8, $6::int, $7::int, $8::int, $9::text[], $10::text, $11::float8, $12::float8, $13::float8, $14::int)`;
  const t: Record<"old" | "new", number[]> = { old: [], new: [] };
  let differ = 0;
  try {
    for (const round of [0, 1]) {
      for (const [i, q] of queries.entries()) {
        const qtf = new Map<string, number>();
        for (const x of tokenize(q.text).slice(0, 64)) qtf.set(x, (qtf.get(x) ?? 0) + 1);
        if (!qtf.size) continue;
        const params = [[kb], [...qtf.keys()], [...qtf.values()], BM25_K1, BM25_B, 16, DEFAULT_POSTINGS_CAP, 100, null, "success", 0, NEGLIGIBLE_SHARE, CONTEXT_WEIGHT, CONTEXT_WINDOW];
        const out: Record<string, string> = {};
        for (const side of i % 2 ? (["new", "old"] as const) : (["old", "new"] as const)) {
          const s = performance.now();
          const rows = await db.$queryRawUnsafe<{ kind: string; key: string; a: number; b: number }[]>(call(side === "old" ? "retrieval_lexical_search" : "retrieval_lexical_search_ab"), ...params);
          if (round) t[side].push(performance.now() - s);
          out[side] = rows.filter((r) => r.kind === "h").map((r) => `${r.key}:${Number(r.a).toFixed(9)}`).sort().join(",");
        }
        if (round && out.old !== out.new) differ++;
      }
    }
    for (const side of ["old", "new"] as const) console.log(`${side}: p50 ${pct(t[side], 50).toFixed(1)} ms, p95 ${pct(t[side], 95).toFixed(1)} ms, mean ${(t[side].reduce((a, b) => a + b, 0) / t[side].length).toFixed(1)} ms, n ${t[side].length}`);
    console.log(`queries whose hits or scores differ: ${differ}`);
  } finally {
    await db.$executeRawUnsafe(`DROP FUNCTION IF EXISTS "retrieval_lexical_search_ab"(text[], text[], integer[], float8, float8, integer, integer, integer, text[], text, float8, float8, float8, integer)`);
    await h.close();
  }
}
void main();
