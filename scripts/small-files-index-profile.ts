// Measurement aid for issue 22 (session 14): where indexing many small files goes on embedded
// PGlite, statement by statement, in the former postings layout (chunk_terms, one row per
// posting) and in posting_pages. bench:retrieval's cmrc2018-sent run indexes 848 files of ~12
// chunks each through replaceFileChunks and got slower with posting_pages (16.7 → 26.1 s);
// this replays exactly those files' statements and times each one.
//
//   node --conditions=react-server --import tsx scripts/small-files-index-profile.ts <chunk-terms|pages> [--files N] [--dataset DIR]
//
// In process (not in the PGlite worker thread): the same WASM engine and statements without the
// message hop, which costs the same per statement in both layouts. A fresh on-disk data
// directory, all migrations (chunk-terms: all but 20261206000000_posting_pages), a CHECKPOINT
// every 32 MB of WAL as lib/db/pglite-wal.mjs asks for, and each layout's own "VACUUM (ANALYZE)
// after enough writes" rule (index-writer.ts's maybeAnalyze, the former one for chunk_terms).
import { cpSync, mkdtempSync, rmSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "@/lib/db/pglite-extensions.mjs";
import { applyMigrations, migrationsDir } from "@/lib/db/migrate";
import { chunkPostings } from "@/lib/retrieval/chunk-postings";
import { insertStatements, analyzeDue } from "@/lib/retrieval/index-writer";

const args = process.argv.slice(2);
const layout = args[0] === "chunk-terms" ? "chunk-terms" : "pages";
const opt = (n: string, d: string) => (args.includes(n) ? args[args.indexOf(n) + 1]! : d);
const FILES = Number(opt("--files", "100000"));
const DATASET = opt("--dataset", "../shared/bench/cmrc2018-sent");
const NO_ANALYZE = args.includes("--no-analyze");

interface Doc {
  id: string;
  title: string;
  text: string;
}

async function main() {
  const docs = readFileSync(path.join(DATASET, "corpus.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Doc);
  const groups = new Map<string, Doc[]>();
  for (const d of docs) {
    const a = d.id.replace(/-s\d+$/, "");
    if (!groups.has(a)) groups.set(a, []);
    groups.get(a)!.push(d);
  }
  const files = [...groups.values()].slice(0, FILES);
  let t = performance.now();
  const prepared = files.map((ds) =>
    ds.map((d, i) => {
      const input = { ordinal: i, content: d.text, pageStart: null, pageEnd: null, headingPath: "" };
      return { id: randomUUID(), input, postings: chunkPostings(input), vector: null };
    }),
  );
  const tokenizeMs = performance.now() - t;

  const dir = mkdtempSync(path.join(tmpdir(), "small-files-profile-"));
  const migDir = mkdtempSync(path.join(tmpdir(), "small-files-mig-"));
  for (const n of readdirSync(migrationsDir())) {
    if (layout === "chunk-terms" && n.startsWith("20261206000000")) continue;
    cpSync(path.join(migrationsDir(), n), path.join(migDir, n), { recursive: true });
  }
  const pg = await PGlite.create(dir, { extensions: PGLITE_EXTENSIONS });
  await applyMigrations({ exec: async (s) => void (await pg.exec(s)), query: async (s, p) => (await pg.query(s, p as unknown[])).rows as never }, migDir);
  rmSync(migDir, { recursive: true, force: true });
  for (const s of [`ALTER SYSTEM SET max_wal_size = '64MB'`, `ALTER SYSTEM SET min_wal_size = '32MB'`, `SELECT pg_reload_conf()`]) await pg.exec(s);
  const kb = `bench-kb-${randomUUID()}`;
  await pg.query(`INSERT INTO users (id, email, name) VALUES ('u1', 'u@x', 'u')`);
  await pg.query(`INSERT INTO knowledges (id, name, owner_id) VALUES ($1, 'kb', 'u1')`, [kb]);

  const parts: Record<string, number> = {};
  const add = (k: string, ms: number) => (parts[k] = (parts[k] ?? 0) + ms);
  const timed = async <T>(k: string, f: () => Promise<T>): Promise<T> => {
    const s = performance.now();
    try {
      return await f();
    } finally {
      add(k, performance.now() - s);
    }
  };
  const lsnBytes = (l: string) => {
    const [hi, lo] = l.split("/");
    return parseInt(hi!, 16) * 2 ** 32 + parseInt(lo!, 16);
  };
  const lsn = async () => lsnBytes((await pg.query<{ l: string }>(`SELECT pg_current_wal_lsn()::text AS l`)).rows[0]!.l);
  let last = await lsn();
  let walSince = 0;
  let walTotal = 0;
  let analyzes = 0;
  let since = 0;
  let postingRows = 0;
  const table = layout === "pages" ? "posting_pages" : "chunk_terms";
  const tAll = performance.now();
  for (let f = 0; f < prepared.length; f++) {
    const batch = prepared[f]!;
    const fileId = `${kb}-f${f}`;
    await timed("file row", () =>
      pg.query(
        `INSERT INTO knowledge_files (id, knowledge_id, name, file_type, mime_type, size, sha256, storage_key, status) VALUES ($1, $2, 'a', 'txt', 'text/plain', 1, $1, $1, 'success')`,
        [fileId, kb],
      ),
    );
    await timed("begin", () => pg.exec("BEGIN"));
    await timed("lock file", () => pg.query(`SELECT id FROM knowledge_files WHERE id = $1 FOR UPDATE`, [fileId]));
    if (layout === "pages") {
      await timed("delete postings", () => pg.query(`DELETE FROM posting_pages WHERE file_id = $1`, [fileId]));
    } else {
      await timed("delete postings", () => pg.query(`DELETE FROM chunk_terms WHERE chunk_id IN (SELECT id FROM chunks WHERE file_id = $1)`, [fileId]));
    }
    await timed("delete chunks", () => pg.query(`DELETE FROM chunks WHERE file_id = $1`, [fileId]));
    const { statements, pages } = insertStatements(kb, fileId, batch, null);
    const chunksSt = statements[0]!;
    await timed("insert chunks", () => pg.query(chunksSt.sql, chunksSt.params as unknown[]));
    let written = pages;
    if (layout === "pages") {
      for (const st of statements.slice(1)) await timed("insert postings", () => pg.query(st.sql, st.params as unknown[]));
    } else {
      // The former writer's statement (commit 0120dc6): one row per (chunk, term).
      const ids: string[] = [], terms: string[] = [], tfs: number[] = [], lens: number[] = [];
      for (const p of batch) p.postings.terms.forEach((term, k) => (ids.push(p.id), terms.push(term), tfs.push(p.postings.tfs[k]!), lens.push(p.postings.tokenCount)));
      written = ids.length;
      await timed("insert postings", () =>
        pg.query(
          `INSERT INTO chunk_terms (chunk_id, knowledge_id, file_id, term, tf, doc_len)
           SELECT u.chunk_id, $1, $2, u.term, u.tf, u.doc_len FROM unnest($3::text[], $4::text[], $5::int[], $6::int[]) AS u(chunk_id, term, tf, doc_len)`,
          [kb, fileId, ids, terms, tfs, lens],
        ),
      );
    }
    postingRows += written;
    await timed("commit", () => pg.exec("COMMIT"));
    // Each layout's analyze rule (chunk_terms: the former one, postings since ≥ 20,000 and ≥ 10 % of the table).
    since += written;
    const due = (n: number) => (layout === "pages" ? analyzeDue(since, n) : since >= 20_000 && since >= 0.1 * n);
    if (!NO_ANALYZE && due(0)) {
      const n = (await pg.query<{ n: number }>(`SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = '${table}'::regclass`)).rows[0]!.n;
      if (due(n)) {
        since = 0;
        analyzes++;
        await timed("vacuum analyze", () => pg.exec(`VACUUM (ANALYZE) ${table}`));
      }
    }
    const now = await lsn();
    walSince += now - last;
    walTotal += now - last;
    last = now;
    if (walSince >= 32 * 1024 * 1024) {
      await timed("checkpoint", () => pg.exec("CHECKPOINT"));
      walSince = 0;
    }
  }
  const totalMs = performance.now() - tAll;
  // --probe: what one VACUUM (ANALYZE) of the postings costs at the end, in parts, and ANALYZE
  // without statistics on the array columns (no query filters on their elements).
  const probe: Record<string, number> = {};
  if (args.includes("--probe")) {
    for (const [k, sql] of [
      ["vacuum", `VACUUM ${table}`],
      ["analyze", `ANALYZE ${table}`],
      ["analyze again", `ANALYZE ${table}`],
      ...(layout === "pages"
        ? [
            ["stats 0 on arrays", `ALTER TABLE posting_pages ALTER COLUMN postings SET STATISTICS 0`],
            ["analyze, arrays without stats", `ANALYZE ${table}`],
            ["vacuum analyze, arrays without stats", `VACUUM (ANALYZE) ${table}`],
          ]
        : []),
    ] as const) {
      const s = performance.now();
      await pg.exec(sql);
      probe[k] = Math.round(performance.now() - s);
    }
  }
  const sizes = (
    await pg.query<{ name: string; mb: number }>(
      `SELECT c.relname AS name, round(pg_relation_size(c.oid) / 1048576.0, 2)::float8 AS mb FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i') ORDER BY pg_relation_size(c.oid) DESC LIMIT 10`,
    )
  ).rows;
  t = performance.now();
  const stats = (await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM retrieval_term_stats`)).rows[0]!.n;
  console.log(
    JSON.stringify({
      layout,
      files: prepared.length,
      chunks: prepared.reduce((n, b) => n + b.length, 0),
      postingRows,
      termStats: stats,
      tokenizeMs: Math.round(tokenizeMs),
      totalMs: Math.round(totalMs),
      analyzes,
      probe,
      walMB: Math.round(walTotal / 1048576),
      partsMs: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, Math.round(v)])),
      perFileMs: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, +(v / prepared.length).toFixed(2)])),
      sizes,
    }),
  );
  await pg.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
