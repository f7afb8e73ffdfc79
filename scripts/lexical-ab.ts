// A/B of the lexical SQL (a figure, not a test): the same queries through the current
// retrieval_lexical_search and through an earlier version of it, alternating query by query in one
// process on one index, so machine noise hits both alike. The earlier version is created from its
// migration's text under another name (retrieval_lexical_search_before) and dropped at the end.
//
//   node --conditions=react-server --import tsx scripts/lexical-ab.ts --reuse-db DIR --kb-name NAME \
//     --dataset ../shared/bench/cmrc2018-sent [--before 20261210000000_lexical_linear_levels] [--limit 300] [--pool 40]
//
// DIR is an embedded database left by `bench-retrieval.ts --reuse-db DIR` (NAME: its KB's name, e.g.
// "cmrc2018-sent+title" or "scale-200000-headings").
import { readFileSync } from "node:fs";
import path from "node:path";
import { openDatabase } from "@/lib/db/client";
import { lexicalSearch } from "@/lib/retrieval/lexical";
import { tokenize } from "@/lib/retrieval/text/tokenize";

const argv = process.argv.slice(2);
const arg = (n: string) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const dir = arg("reuse-db")!;
const kbName = arg("kb-name")!;
const dataset = arg("dataset")!;
const before = arg("before") ?? "20261210000000_lexical_linear_levels";
const limit = Number(arg("limit") ?? 300);
const pool = Number(arg("pool") ?? 40);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0;
};

async function main() {
  const h = await openDatabase({ dataDir: dir });
  const db = h.prisma;
  try {
    const kb = (await db.knowledge.findFirst({ where: { name: kbName } }))?.id;
    if (!kb) throw new Error(`no KB named ${kbName} in ${dir}`);
    const sql = readFileSync(path.join("prisma/migrations", before, "migration.sql"), "utf8");
    // The function's last definition in that migration (CREATE or CREATE OR REPLACE), to its end.
    const at = Math.max(sql.lastIndexOf('CREATE FUNCTION "retrieval_lexical_search"('), sql.lastIndexOf('CREATE OR REPLACE FUNCTION "retrieval_lexical_search"('));
    if (at < 0) throw new Error(`no retrieval_lexical_search in ${before}`);
    const body = sql.slice(at).replace(/CREATE (OR REPLACE )?FUNCTION "retrieval_lexical_search"\(/, 'CREATE OR REPLACE FUNCTION "retrieval_lexical_search_before"(');
    await db.$executeRawUnsafe(body);
    const old = { $queryRawUnsafe: <T,>(q: string, ...p: unknown[]) => db.$queryRawUnsafe<T>(q.replace("retrieval_lexical_search(", "retrieval_lexical_search_before("), ...p) };
    const queries = readFileSync(path.join(dataset, "queries.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => (JSON.parse(l) as { text: string }).text)
      .slice(0, limit);
    const lat = { before: [] as number[], after: [] as number[] };
    let differ = 0;
    for (let round = 0; round < 2; round++) {
      for (const [i, q] of queries.entries()) {
        const tokens = tokenize(q);
        // Alternate which goes first, so neither always finds the other's pages in cache.
        const order = (i + round) % 2 ? (["before", "after"] as const) : (["after", "before"] as const);
        const ids: Record<string, string> = {};
        for (const which of order) {
          const t0 = performance.now();
          const r = await lexicalSearch(which === "before" ? old : db, { knowledgeIds: [kb], tokens, limit: pool });
          if (round > 0) lat[which].push(performance.now() - t0);
          ids[which] = r.hits.map((x) => x.chunkId).join(",");
        }
        if (round > 0 && ids.before !== ids.after) differ++;
      }
    }
    const f = (x: number) => x.toFixed(1);
    console.log(`${kbName}: ${queries.length} queries, pool ${pool}, second of two rounds (the first warms caches and plans)`);
    for (const k of ["before", "after"] as const) console.log(`  ${k.padEnd(6)} (${k === "before" ? before : "current"}): p50 ${f(pct(lat[k], 50))} ms, p95 ${f(pct(lat[k], 95))} ms, mean ${f(lat[k].reduce((a, b) => a + b, 0) / lat[k].length)} ms`);
    console.log(`  queries whose hits differ: ${differ}`);
  } finally {
    await db.$executeRawUnsafe(`DROP FUNCTION IF EXISTS "retrieval_lexical_search_before"(text[], text[], integer[], float8, float8, integer, integer, integer, text[], text, float8, float8, float8, integer)`).catch(() => undefined);
    await h.close();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
