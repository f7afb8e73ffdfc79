// Throwaway measurement for issue 22 (s11-postings): where one batch of the 10 MB Markdown's
// indexing goes on embedded PGlite, and how narrower postings layouts write and read.
//
//   node --conditions=react-server --import tsx scripts/postings-layout-bench.ts <variant> [--md-mb 10] [--batch 256]
//
// Variants: base | no-stats | no-pk | no-impact | no-trgm | bare (breakdown of the former
// one-row-per-posting layout, chunk_terms, migrations before 20261205100000), int-pk | int-nopk |
// lists (prototype layouts), pages (the product: all migrations, posting_pages, and the index
// writer's own statements, insertStatements), pages-no-trgm (the same without the trigram index), pages-no-stats (without
// the document-frequency trigger). Each run uses a fresh PGlite data
// directory on disk with all migrations applied, writes the file's chunks in fixed batches (each
// one transaction: chunks then postings, as the index writer does) and prints per-part timings.
import { cpSync, mkdtempSync, rmSync, writeFileSync, existsSync, readFileSync, statSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "@/lib/db/pglite-extensions.mjs";
import { applyMigrations, migrationsDir } from "@/lib/db/migrate";
import { runParseTask } from "@/lib/ingestion/parse-task";
import { DEFAULT_CONTENT_LIMITS } from "@/lib/ingestion/types";
import { chunkPostings, type IndexableChunk } from "@/lib/retrieval/chunk-postings";
import { insertStatements } from "@/lib/retrieval/index-writer";
import type { ChunkInput } from "@/lib/retrieval/types";

const args = process.argv.slice(2);
const variant = args[0] ?? "base";
const opt = (n: string, d: number) => (args.includes(n) ? Number(args[args.indexOf(n) + 1]) : d);
const MD_MB = opt("--md-mb", 10);
const BATCH = opt("--batch", 256);

function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}
const WORDS = (
  "the of and knowledge retrieval document parsing page heading paragraph user administrator server database vector " +
  "model answer citation source upload index progress failure success network storage policy budget report quarter " +
  "revenue customer support release version feature security access token session limit backup restore cluster"
).split(" ");
function sentence(rnd: () => number, n: number): string {
  const w = Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]!);
  w[0] = w[0]![0]!.toUpperCase() + w[0]!.slice(1);
  return `${w.join(" ")}.`;
}
function makeMarkdown(mb: number): Buffer {
  const rnd = rng(7);
  const parts: string[] = ["# Generated handbook\n"];
  let size = 0;
  let line = 0;
  while (size < mb * 1024 * 1024) {
    const l = line % 20 === 0 ? `\n## Section ${line / 20 + 1}\n` : sentence(rnd, 14);
    parts.push(l);
    size += Buffer.byteLength(l) + 1;
    line++;
  }
  return Buffer.from(parts.join("\n"));
}

async function chunksOf(): Promise<ChunkInput[]> {
  const cache = path.join(tmpdir(), `postings-bench-md-${MD_MB}.json`);
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, "utf8")) as ChunkInput[];
  const file = path.join(tmpdir(), `postings-bench-md-${MD_MB}.md`);
  writeFileSync(file, makeMarkdown(MD_MB));
  const out: IndexableChunk[] = [];
  await runParseTask(
    {
      fileType: "md",
      filePath: file,
      deadline: Date.now() + 600_000,
      timeoutMs: 600_000,
      maxPages: 100_000,
      limits: { ...DEFAULT_CONTENT_LIMITS, maxChunks: 1_000_000, maxTextChars: 1e9 },
      chunk: { targetChars: 650, overlapChars: 100 },
    },
    (m) => {
      if (m.type === "chunks") out.push(...m.items);
      if (m.type === "failed") throw new Error(m.message);
    },
  );
  const plain = out.map((c) => ({ ordinal: c.ordinal, content: c.content, pageStart: c.pageStart, pageEnd: c.pageEnd, headingPath: c.headingPath, pageMarks: c.pageMarks }) as ChunkInput);
  writeFileSync(cache, JSON.stringify(plain));
  return plain;
}

const dirBytes = (d: string): number => {
  let n = 0;
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    n += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return n;
};

const LAYOUT_SQL: Record<string, string> = {
  // Integer surrogates: chunks.seq (bigint identity), knowledges.seq and knowledge_files.seq.
  common: `
    ALTER TABLE chunks ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
    CREATE UNIQUE INDEX chunks_seq_key ON chunks (seq);
    ALTER TABLE knowledges ADD COLUMN seq integer GENERATED ALWAYS AS IDENTITY;
    ALTER TABLE knowledge_files ADD COLUMN seq integer GENERATED ALWAYS AS IDENTITY;
    CREATE TABLE term_stats2 (kb integer NOT NULL, term text NOT NULL, df bigint NOT NULL DEFAULT 0, PRIMARY KEY (kb, term));`,
  "int-pk": `
    CREATE TABLE postings (kb integer NOT NULL, term text NOT NULL, tf integer NOT NULL, doc_len integer NOT NULL, chunk bigint NOT NULL, file integer NOT NULL,
      PRIMARY KEY (chunk, term));
    CREATE INDEX postings_impact ON postings (kb, term, tf DESC, doc_len, chunk) INCLUDE (file);`,
  "int-nopk": `
    CREATE TABLE postings (kb integer NOT NULL, term text NOT NULL, tf integer NOT NULL, doc_len integer NOT NULL, chunk bigint NOT NULL, file integer NOT NULL);
    CREATE INDEX postings_impact ON postings (kb, term, tf DESC, doc_len, chunk) INCLUDE (file);`,
  "int-chunkidx": `
    CREATE TABLE postings (kb integer NOT NULL, term text NOT NULL, tf integer NOT NULL, doc_len integer NOT NULL, chunk bigint NOT NULL, file integer NOT NULL);
    CREATE INDEX postings_impact ON postings (kb, term, tf DESC, doc_len, chunk) INCLUDE (file);
    CREATE INDEX postings_chunk ON postings (chunk);`,
  lists: `
    CREATE TABLE postings (kb integer NOT NULL, term text NOT NULL, first_chunk bigint NOT NULL, chunks bigint[] NOT NULL, tfs integer[] NOT NULL, doc_lens integer[] NOT NULL, files integer[] NOT NULL,
      PRIMARY KEY (kb, term, first_chunk));`,
};

const STATS_TRIGGER = `
  CREATE FUNCTION ts2_apply() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO term_stats2 AS s (kb, term, df) SELECT kb, term, count(*) FROM new_rows GROUP BY kb, term ORDER BY kb, term
    ON CONFLICT (kb, term) DO UPDATE SET df = s.df + EXCLUDED.df;
    RETURN NULL;
  END $$;
  CREATE TRIGGER ts2_insert AFTER INSERT ON postings REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ts2_apply();`;
const LISTS_TRIGGER = `
  CREATE FUNCTION ts2_apply() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO term_stats2 AS s (kb, term, df) SELECT kb, term, sum(cardinality(chunks)) FROM new_rows GROUP BY kb, term ORDER BY kb, term
    ON CONFLICT (kb, term) DO UPDATE SET df = s.df + EXCLUDED.df;
    RETURN NULL;
  END $$;
  CREATE TRIGGER ts2_insert AFTER INSERT ON postings REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ts2_apply();`;

async function main() {
  const chunks = await chunksOf();
  if (variant === "prime") return console.log(`${chunks.length} chunks cached`);
  const t0 = performance.now();
  const prepared = chunks.map((c) => ({ c, p: chunkPostings(c) }));
  const tokenizeMs = performance.now() - t0;
  const postingsTotal = prepared.reduce((n, x) => n + x.p.terms.length, 0);

  const dir = mkdtempSync(path.join(tmpdir(), "postings-bench-db-"));
  const pg = await PGlite.create(dir, { extensions: PGLITE_EXTENSIONS });
  // The schema as of main before 20261205100000_postings_seq: the prototypes add their own tables.
  const migDir = mkdtempSync(path.join(tmpdir(), "postings-bench-mig-"));
  const pages = variant.startsWith("pages");
  for (const n of readdirSync(migrationsDir())) if (pages || n < "20261205100000") cpSync(path.join(migrationsDir(), n), path.join(migDir, n), { recursive: true });
  await applyMigrations({ exec: async (s) => void (await pg.exec(s)), query: async (s, p) => (await pg.query(s, p as unknown[])).rows as never }, migDir);
  for (const s of [`ALTER SYSTEM SET max_wal_size = '64MB'`, `ALTER SYSTEM SET min_wal_size = '32MB'`, `SELECT pg_reload_conf()`]) await pg.exec(s);
  const layout = ["int-pk", "int-nopk", "int-chunkidx", "lists"].includes(variant);
  if (variant === "no-stats" || variant === "bare") await pg.exec(`DROP TRIGGER chunk_terms_stats_insert ON chunk_terms`);
  if (variant === "no-pk" || variant === "bare") await pg.exec(`ALTER TABLE chunk_terms DROP CONSTRAINT chunk_terms_pkey`);
  if (variant === "no-impact" || variant === "bare") await pg.exec(`DROP INDEX chunk_terms_impact_idx`);
  if (variant === "no-trgm" || variant === "bare" || variant === "pages-no-trgm") await pg.exec(`DROP INDEX chunks_content_trgm_idx`);
  // pages-no-stats: the pages without their document-frequency trigger (its share of the write).
  if (variant === "pages-no-stats") await pg.exec(`DROP TRIGGER posting_pages_stats_insert ON posting_pages`);
  if (layout) {
    await pg.exec(LAYOUT_SQL.common! + LAYOUT_SQL[variant]! + (variant === "lists" ? LISTS_TRIGGER : STATS_TRIGGER));
  }
  const kb = "kb_" + randomUUID().slice(0, 18);
  const file = "f_" + randomUUID().slice(0, 19);
  await pg.query(`INSERT INTO users (id, email, name) VALUES ('u1', 'u@x', 'u')`);
  await pg.query(`INSERT INTO knowledges (id, name, owner_id) VALUES ($1, 'kb', 'u1')`, [kb]);
  await pg.query(
    `INSERT INTO knowledge_files (id, knowledge_id, name, file_type, mime_type, size, sha256, storage_key) VALUES ($1, $2, 'h.md', 'markdown', 'text/markdown', 1, 'x', 'k')`,
    [file, kb],
  );
  const kbSeq = layout ? (await pg.query<{ seq: number }>(`SELECT seq FROM knowledges WHERE id = $1`, [kb])).rows[0]!.seq : 0;
  const fileSeq = layout ? (await pg.query<{ seq: number }>(`SELECT seq FROM knowledge_files WHERE id = $1`, [file])).rows[0]!.seq : 0;

  const part = { chunks: 0, postings: 0, commit: 0, checkpoint: 0 };
  let walSince = 0;
  let lastLsn = (await pg.query<{ l: string }>(`SELECT pg_current_wal_lsn()::text AS l`)).rows[0]!.l;
  let checkpoints = 0;
  const lsnBytes = (l: string) => {
    const [hi, lo] = l.split("/");
    return parseInt(hi!, 16) * 2 ** 32 + parseInt(lo!, 16);
  };
  let walTotal = 0;
  const tAll = performance.now();
  for (let s = 0; s < prepared.length; s += BATCH) {
    const b = prepared.slice(s, s + BATCH);
    await pg.exec("BEGIN");
    let t = performance.now();
    if (pages) {
      // The index writer's statements for this batch, timed one by one.
      const { statements } = insertStatements(kb, file, b.map((x) => ({ id: randomUUID(), input: x.c, postings: x.p, vector: null })), null);
      for (const st of statements) {
        t = performance.now();
        await pg.query(st.sql, st.params as unknown[]);
        if (st.sql.includes("INSERT INTO chunks")) part.chunks += performance.now() - t;
        else part.postings += performance.now() - t;
      }
    } else {
    const ids = b.map(() => randomUUID());
    const r = await pg.query<{ seq: string }>(
      `INSERT INTO chunks (id, knowledge_id, file_id, ordinal, content, page_start, page_end, heading_path, tokens, token_count, embedding, embedding_model, page_marks)
       SELECT u.id, $1, $2, u.ordinal, u.content, u.page_start, u.page_end, u.heading_path, u.tokens, u.token_count, NULL, NULL, NULL
       FROM unnest($3::text[], $4::int[], $5::text[], $6::int[], $7::int[], $8::text[], $9::text[], $10::int[]) AS u(id, ordinal, content, page_start, page_end, heading_path, tokens, token_count)
       ${layout ? "RETURNING seq" : ""}`,
      [kb, file, ids, b.map((x) => x.c.ordinal), b.map((x) => x.c.content), b.map((x) => x.c.pageStart), b.map((x) => x.c.pageEnd), b.map((x) => x.c.headingPath ?? ""), b.map((x) => x.p.tokens), b.map((x) => x.p.tokenCount)],
    );
    part.chunks += performance.now() - t;
    t = performance.now();
    if (!layout) {
      const cid: string[] = [], term: string[] = [], tf: number[] = [], len: number[] = [];
      b.forEach((x, i) => x.p.terms.forEach((tm, k) => (cid.push(ids[i]!), term.push(tm), tf.push(x.p.tfs[k]!), len.push(x.p.tokenCount))));
      await pg.query(
        `INSERT INTO chunk_terms (chunk_id, knowledge_id, file_id, term, tf, doc_len) SELECT u.chunk_id, $1, $2, u.term, u.tf, u.doc_len FROM unnest($3::text[], $4::text[], $5::int[], $6::int[]) AS u(chunk_id, term, tf, doc_len)`,
        [kb, file, cid, term, tf, len],
      );
    } else if (variant === "lists") {
      // One row per term of the batch: its chunks in chunk order.
      const per = new Map<string, { c: number[]; tf: number[]; len: number[] }>();
      b.forEach((x, i) =>
        x.p.terms.forEach((tm, k) => {
          const e = per.get(tm) ?? { c: [], tf: [], len: [] };
          e.c.push(Number(r.rows[i]!.seq));
          e.tf.push(x.p.tfs[k]!);
          e.len.push(x.p.tokenCount);
          per.set(tm, e);
        }),
      );
      const terms = [...per.keys()];
      await pg.query(
        `INSERT INTO postings (kb, term, first_chunk, chunks, tfs, doc_lens, files)
         SELECT $1, u.term, (u.c::bigint[])[1], u.c::bigint[], u.tf::int[], u.len::int[], array_fill($2::int, ARRAY[cardinality(u.c::bigint[])])
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS u(term, c, tf, len)`,
        [kbSeq, fileSeq, terms, terms.map((k) => `{${per.get(k)!.c.join(",")}}`), terms.map((k) => `{${per.get(k)!.tf.join(",")}}`), terms.map((k) => `{${per.get(k)!.len.join(",")}}`)],
      );
    } else {
      const cid: number[] = [], term: string[] = [], tf: number[] = [], len: number[] = [];
      // --sorted: each chunk's terms in key order, so (chunk, term) keys arrive in ascending order.
      const order = (x: (typeof b)[number]) => {
        const ks = x.p.terms.map((_, k) => k);
        return args.includes("--sorted") ? ks.sort((p1, p2) => (x.p.terms[p1]! < x.p.terms[p2]! ? -1 : 1)) : ks;
      };
      b.forEach((x, i) => order(x).forEach((k) => (cid.push(Number(r.rows[i]!.seq)), term.push(x.p.terms[k]!), tf.push(x.p.tfs[k]!), len.push(x.p.tokenCount))));
      await pg.query(
        `INSERT INTO postings (kb, term, tf, doc_len, chunk, file) SELECT $1, u.term, u.tf, u.doc_len, u.chunk, $2 FROM unnest($3::bigint[], $4::text[], $5::int[], $6::int[]) AS u(chunk, term, tf, doc_len)`,
        [kbSeq, fileSeq, cid, term, tf, len],
      );
    }
    part.postings += performance.now() - t;
    }
    t = performance.now();
    await pg.exec("COMMIT");
    part.commit += performance.now() - t;
    const lsn = (await pg.query<{ l: string }>(`SELECT pg_current_wal_lsn()::text AS l`)).rows[0]!.l;
    const d = lsnBytes(lsn) - lsnBytes(lastLsn);
    walSince += d;
    walTotal += d;
    lastLsn = lsn;
    if (walSince >= 32 * 1024 * 1024) {
      t = performance.now();
      await pg.exec("CHECKPOINT");
      part.checkpoint += performance.now() - t;
      checkpoints++;
      walSince = 0;
    }
  }
  const writeMs = performance.now() - tAll;
  const batches = Math.ceil(prepared.length / BATCH);
  // Sizes of the postings relations.
  const sizes = (
    await pg.query<{ name: string; mb: number }>(
      `SELECT relname AS name, round(pg_total_relation_size(oid) / 1048576.0, 1)::float8 AS mb FROM pg_class WHERE relname IN ('chunk_terms','chunk_terms_pkey','chunk_terms_impact_idx','postings','postings_pkey','postings_impact','postings_chunk','chunks','chunks_content_trgm_idx','retrieval_term_stats','term_stats2','posting_pages','posting_pages_level_idx','posting_pages_file_idx') ORDER BY 2 DESC`,
    )
  ).rows;

  // Reads on the same data: the statements' access patterns of retrieval_lexical_search.
  await pg.exec(pages ? `VACUUM (ANALYZE) posting_pages` : layout ? `VACUUM (ANALYZE) postings` : `VACUUM (ANALYZE) chunk_terms`);
  const qTerms = ["knowledg", "retriev", "vector", "cluster", "budget", "restor"].map((w) => w);
  const termsPresent = layout
    ? (await pg.query<{ term: string }>(`SELECT term FROM term_stats2 ORDER BY df DESC LIMIT 12`)).rows.map((r) => r.term)
    : (await pg.query<{ term: string }>(`SELECT term FROM retrieval_term_stats ORDER BY df DESC LIMIT 12`)).rows.map((r) => r.term);
  void qTerms;
  const times: Record<string, number[]> = { top1000: [], lookup: [], full: [] };
  const sampleChunks = layout
    ? (await pg.query<{ k: string }>(`SELECT seq::text AS k FROM chunks ORDER BY random() LIMIT 400`)).rows.map((r) => r.k)
    : (await pg.query<{ k: string }>(`SELECT id AS k FROM chunks ORDER BY random() LIMIT 400`)).rows.map((r) => r.k);
  // (No terms to read when the document-frequency trigger was dropped.)
  for (let rep = 0; rep < (termsPresent.length ? 20 : 0); rep++) {
    const term = termsPresent[rep % termsPresent.length]!;
    let t = performance.now();
    if (pages) {
      // retrieval_lexical_search's read of a capped term (pc): pages in level order, cut by inc
      // (the window of migration 20261210000000: a GROUPS frame, linear in the pages read).
      await pg.query(
        `SELECT pg.file_id, e.ordinal, e.tf, e.doc_len FROM (
           SELECT r.file_id, r.ordinals, r.tfs, r.doc_lens, coalesce(sum(r.inc) OVER (ORDER BY r.first_tf DESC, r.first_dl GROUPS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
           FROM (SELECT * FROM posting_pages p WHERE p.knowledge_id = $1 AND p.term = $2 ORDER BY p.first_tf DESC, p.first_dl FETCH FIRST 1000 ROWS WITH TIES) r) pg
         CROSS JOIN LATERAL unnest(pg.ordinals, pg.tfs, pg.doc_lens) AS e(ordinal, tf, doc_len)
         WHERE pg.before < 1000 ORDER BY e.tf DESC, e.doc_len, pg.file_id, e.ordinal LIMIT 1000`,
        [kb, term],
      );
    } else if (variant === "lists") {
      await pg.query(`SELECT x.c, x.tf, x.l FROM postings p, unnest(p.chunks, p.tfs, p.doc_lens) AS x(c, tf, l) WHERE p.kb = $1 AND p.term = $2 ORDER BY x.tf DESC, x.l, x.c LIMIT 1000`, [kbSeq, term]);
    } else if (layout) {
      await pg.query(`SELECT chunk, file, tf, doc_len FROM postings WHERE kb = $1 AND term = $2 ORDER BY tf DESC, doc_len, chunk LIMIT 1000`, [kbSeq, term]);
    } else {
      await pg.query(`SELECT chunk_id, file_id, tf, doc_len FROM chunk_terms WHERE knowledge_id = $1 AND term = $2 ORDER BY tf DESC, doc_len, chunk_id LIMIT 1000`, [kb, term]);
    }
    times.top1000!.push(performance.now() - t);
    // 400 candidates x 3 capped terms: exact tf (the PK lookups of the final step).
    const three = [termsPresent[rep % 12]!, termsPresent[(rep + 1) % 12]!, termsPresent[(rep + 2) % 12]!];
    t = performance.now();
    if (pages) {
      // The capped terms' tf in each candidate, counted in its tokens (as the function does).
      await pg.query(
        `SELECT ch.id, w.t, cardinality(array_positions(d.a, w.t)) AS tf
         FROM chunks ch CROSS JOIN LATERAL (SELECT string_to_array(ch.tokens, ' ') AS a) d CROSS JOIN unnest($2::text[]) w(t) WHERE ch.id = ANY($1::text[])`,
        [sampleChunks, three],
      );
    } else if (variant === "int-pk") {
      await pg.query(`SELECT p.chunk, p.term, p.tf FROM unnest($1::bigint[]) c(k) CROSS JOIN unnest($2::text[]) w(t) JOIN postings p ON p.chunk = c.k AND p.term = w.t`, [sampleChunks, three]);
    } else if (variant === "int-chunkidx") {
      await pg.query(`SELECT p.chunk, p.term, p.tf FROM postings p WHERE p.chunk = ANY($1::bigint[]) AND p.term = ANY($2::text[])`, [sampleChunks, three]);
    } else if (layout) {
      // No key on (chunk, term): count the term in the chunk's stored tokens.
      await pg.query(
        `SELECT ch.seq, w.t, (SELECT count(*) FROM unnest(string_to_array(ch.tokens, ' ')) x WHERE x = w.t) AS tf FROM chunks ch CROSS JOIN unnest($2::text[]) w(t) WHERE ch.seq = ANY($1::bigint[])`,
        [sampleChunks, three],
      );
    } else {
      await pg.query(`SELECT p.chunk_id, p.term, p.tf FROM unnest($1::text[]) c(k) CROSS JOIN unnest($2::text[]) w(t) JOIN chunk_terms p ON p.chunk_id = c.k AND p.term = w.t`, [sampleChunks, three]);
    }
    times.lookup!.push(performance.now() - t);
    // Every posting of one term (an uncapped term's read, here on a common one: worst case).
    t = performance.now();
    if (pages) await pg.query(`SELECT count(*) FROM posting_pages p, unnest(posting_ordinals(p.postings)) x WHERE p.knowledge_id = $1 AND p.term = $2`, [kb, term]);
    else if (variant === "lists") await pg.query(`SELECT count(*) FROM postings p, unnest(p.chunks) x WHERE p.kb = $1 AND p.term = $2`, [kbSeq, term]);
    else if (layout) await pg.query(`SELECT count(*) FROM postings WHERE kb = $1 AND term = $2`, [kbSeq, term]);
    else await pg.query(`SELECT count(*) FROM chunk_terms WHERE knowledge_id = $1 AND term = $2`, [kb, term]);
    times.full!.push(performance.now() - t);
  }
  const p95 = (a: number[]) => [...a].sort((x, y) => x - y)[Math.ceil(a.length * 0.95) - 1]!;
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  const out = {
    variant,
    chunks: prepared.length,
    postings: postingsTotal,
    batch: BATCH,
    batches,
    tokenizeMs: Math.round(tokenizeMs),
    writeMs: Math.round(writeMs),
    postingsPerSec: Math.round(postingsTotal / (writeMs / 1000)),
    perBatchMs: Object.fromEntries(Object.entries(part).map(([k, v]) => [k, +(v / batches).toFixed(1)])),
    totalMs: Object.fromEntries(Object.entries(part).map(([k, v]) => [k, Math.round(v)])),
    checkpoints,
    walMB: Math.round(walTotal / 1048576),
    dataDirMB: Math.round(dirBytes(dir) / 1048576),
    sizes,
    readsMs: Object.fromEntries(Object.entries(times).filter(([, v]) => v.length).map(([k, v]) => [k, { p50: +med(v).toFixed(1), p95: +p95(v).toFixed(1) }])),
  };
  console.log(JSON.stringify(out));
  await pg.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
