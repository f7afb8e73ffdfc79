// Measurement aid for issue 22 item 2 (session 20): where writing a large file's chunks goes on
// embedded PGlite, statement by statement. Parses bench:ingest's generated Markdown and PDF
// (run `npm run bench:ingest -- --under-load --corpus-only` first) with the parse task the
// server's parse threads run, then writes their chunks with the writer's own statements
// (index-writer.ts insertStatements) in batches of a fixed size, one transaction per batch,
// in process (the same WASM engine without the worker hop).
//
// Then adds every chunk to grep_chunks' trigram index the way lib/retrieval/grep-index.ts does
// after a file is searchable (chunk_grep rows, `--batch` chunks per statement), timed apart:
// before migration 20261214000000 that index was maintained inside the writer's batches.
//
//   node --conditions=react-server --import tsx scripts/write-path-profile.ts [--batch N] [--files md,pdf] [--probe-trgm] [--maintenance]
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "@/lib/db/pglite-extensions.mjs";
import { applyMigrations } from "@/lib/db/migrate";
import { openEmbedded } from "@/lib/db/pglite-open.mjs";
import { runParseTask, type ParseMessage } from "@/lib/ingestion/parse-task";
import { DEFAULT_CONTENT_LIMITS } from "@/lib/ingestion/types";
import { insertStatements, newChunkId, type IndexableChunk, type PreparedChunk } from "@/lib/retrieval/index-writer";

const args = process.argv.slice(2);
const opt = (n: string, d: string) => (args.includes(n) ? args[args.indexOf(n) + 1]! : d);
const BATCH = Number(opt("--batch", "100"));
const FILES = opt("--files", "md,pdf").split(",");
const corpusDir = path.join(tmpdir(), readdirSync(tmpdir()).find((n) => n.startsWith("ka-bench-load-corpus-"))!);

async function parse(file: string, fileType: "md" | "pdf"): Promise<IndexableChunk[]> {
  const chunks: IndexableChunk[] = [];
  await runParseTask(
    {
      fileType,
      filePath: path.join(corpusDir, file),
      deadline: Date.now() + 600_000,
      timeoutMs: 600_000,
      maxPages: 5000,
      limits: DEFAULT_CONTENT_LIMITS,
      chunk: { targetChars: 650, overlapChars: 100 },
    },
    (m: ParseMessage) => {
      if (m.type === "chunks") chunks.push(...m.items);
      if (m.type === "failed") throw new Error(m.message);
    },
  );
  return chunks;
}

async function main() {
  const inputs: Array<{ name: string; chunks: IndexableChunk[]; parseMs: number }> = [];
  for (const f of FILES) {
    const t = performance.now();
    const chunks = await parse(f === "md" ? "handbook.md" : "manual.pdf", f as "md" | "pdf");
    inputs.push({ name: f, chunks, parseMs: performance.now() - t });
  }
  const dir = mkdtempSync(path.join(tmpdir(), "write-path-profile-"));
  const pg = await openEmbedded(dir, (o) => PGlite.create(dir, { ...o, extensions: PGLITE_EXTENSIONS }));
  await applyMigrations({ exec: async (s) => void (await pg.exec(s)), query: async (s, p) => (await pg.query(s, p as unknown[])).rows as never });
  await pg.query(`INSERT INTO users (id, email, name) VALUES ('u1', 'u@x', 'u')`);
  await pg.query(`INSERT INTO knowledges (id, name, owner_id) VALUES ('kb', 'kb', 'u1')`);
  const parts: Record<string, number> = {};
  const timed = async <T>(k: string, f: () => Promise<T>): Promise<T> => {
    const s = performance.now();
    try {
      return await f();
    } finally {
      parts[k] = (parts[k] ?? 0) + performance.now() - s;
    }
  };
  const out: Record<string, unknown> = { batch: BATCH };
  for (const input of inputs) {
    const fileId = `f-${input.name}`;
    await pg.query(
      `INSERT INTO knowledge_files (id, knowledge_id, name, file_type, mime_type, size, sha256, storage_key, status) VALUES ($1, 'kb', $1, 'md', 'text/plain', 1, $1, $1, 'indexing')`,
      [fileId],
    );
    const t = performance.now();
    let pages = 0;
    for (let i = 0; i < input.chunks.length; i += BATCH) {
      const prepared: PreparedChunk[] = input.chunks.slice(i, i + BATCH).map((c) => ({ id: newChunkId(), input: c, postings: c, vector: null }));
      const st = insertStatements("kb", fileId, prepared, null);
      pages += st.pages;
      await timed("begin", () => pg.exec("BEGIN"));
      await timed("lock file", () => pg.query(`SELECT id FROM knowledge_files WHERE id = $1 FOR UPDATE`, [fileId]));
      await timed("insert chunks", () => pg.query(st.statements[0]!.sql, st.statements[0]!.params as unknown[]));
      for (const s of st.statements.slice(1)) await timed("insert pages", () => pg.query(s.sql, s.params as unknown[]));
      await timed("commit", () => pg.exec("COMMIT"));
    }
    out[input.name] = { chunks: input.chunks.length, parseMs: Math.round(input.parseMs), writeMs: Math.round(performance.now() - t), pages };
  }
  if (args.includes("--maintenance")) {
    // The writer's planner-statistics upkeep (index-writer.ts maybeAnalyze) on the pages just
    // written: VACUUM then ANALYZE as the writer runs them, then each column's share of an
    // ANALYZE, then the former combined statement. One statement holds the embedded engine (and so the server's main thread).
    const m: Record<string, number> = {};
    for (const [k, sql] of [
      ["vacuum", `VACUUM posting_pages`],
      ["analyze", `ANALYZE posting_pages`],
      ["analyze again", `ANALYZE posting_pages`],
      ["analyze (term)", `ANALYZE posting_pages (term)`],
      ["analyze (knowledge_id)", `ANALYZE posting_pages (knowledge_id)`],
      ["analyze (file_id)", `ANALYZE posting_pages (file_id)`],
      ["analyze (first_tf, first_dl, inc)", `ANALYZE posting_pages (first_tf, first_dl, inc)`],
      ["vacuum again", `VACUUM posting_pages`],
      ["vacuum (analyze) (after both)", `VACUUM (ANALYZE) posting_pages`],
    ] as const) {
      const t = performance.now();
      await pg.exec(sql);
      m[k] = Math.round(performance.now() - t);
    }
    out.maintenanceMs = m;
    out.postingPages = (await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM posting_pages`)).rows[0]!.n;
  }
  {
    const t = performance.now();
    for (const input of inputs) {
      for (let after = -1; ; ) {
        const r = await timed("grep index", () =>
          pg.query<{ n: number; last: number }>(
            `WITH s AS (SELECT id, ordinal, knowledge_id FROM chunks WHERE file_id = $1 AND ordinal > $2 ORDER BY ordinal LIMIT $3),
                  i AS (INSERT INTO chunk_grep (chunk_id, knowledge_id) SELECT id, knowledge_id FROM s ON CONFLICT DO NOTHING RETURNING 1)
             SELECT count(*)::int AS n, coalesce(max(ordinal), $2)::int AS last FROM s`,
            [`f-${input.name}`, after, BATCH],
          ),
        );
        if (!r.rows[0] || r.rows[0].n === 0) break;
        after = r.rows[0].last;
      }
    }
    out.grepIndexMs = Math.round(performance.now() - t);
    out.grepIndexMB = (await pg.query<{ mb: number }>(`SELECT round(pg_relation_size('chunk_grep_kb_text_idx') / 1048576.0, 1)::float8 AS mb`)).rows[0]!.mb;
    out.chunkGrepMB = (await pg.query<{ mb: number }>(`SELECT round(pg_total_relation_size('chunk_grep') / 1048576.0, 1)::float8 AS mb`)).rows[0]!.mb;
  }
  if (args.includes("--probe-trgm")) {
    for (const [k, sql] of [
      ["show_trgm", `SELECT sum(array_length(show_trgm(content), 1))::float8 AS n FROM chunks`],
      ["lower", `SELECT sum(length(lower(content)))::float8 AS n FROM chunks`],
      ["length", `SELECT sum(length(content))::float8 AS n FROM chunks`],
    ] as const) {
      const t = performance.now();
      const r = await pg.query<{ n: number }>(sql);
      out[k] = { ms: Math.round(performance.now() - t), n: r.rows[0]!.n };
    }
  }
  out.partsMs = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, Math.round(v)]));
  console.log(JSON.stringify(out));
  await pg.close();
  rmSync(dir, { recursive: true, force: true });
}

void main();
