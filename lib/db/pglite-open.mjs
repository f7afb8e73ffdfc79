// Opening an embedded PGlite data directory with the app's storage settings (issue 22 item 3):
// the bounded write-ahead log (pglite-wal.mjs) and no template databases.
// PGlite's initdb creates PostgreSQL's usual three databases; the app uses one, `postgres`.
// template0 and template1 exist for CREATE DATABASE, which an embedded data directory never runs
// (it holds one database; PGlite's own upgrade path is a dump of that database restored into a
// new directory). Each is ~7.4 MB of system catalogs: together half of a new data directory
// (30 -> 15 MB) and ~8 % of one after bench:ingest's corpus (docs/bench-ingest-under-load.md,
// session 18). They are dropped when a directory is first opened, and from directories created
// before this too. Plain JavaScript: the PGlite worker thread loads it without a TS loader.
import { createWithBoundedWal } from "./pglite-wal.mjs";

/** The databases initdb creates that the app never uses. */
export const UNUSED_TEMPLATES = ["template0", "template1"];

/** Drops the template databases still there (a template must be unmarked before DROP). */
export async function dropUnusedTemplates(pg) {
  const left = await pg.query(`SELECT datname FROM pg_database WHERE datname = ANY($1::text[])`, [UNUSED_TEMPLATES]);
  for (const { datname } of left.rows) {
    if (!UNUSED_TEMPLATES.includes(datname)) continue;
    await pg.exec(`ALTER DATABASE ${datname} IS_TEMPLATE false`);
    await pg.exec(`DROP DATABASE ${datname}`);
  }
}

/** PGlite.create through `create(options)` with the WAL bounded and the templates dropped. */
export async function openEmbedded(dir, create) {
  const pg = await createWithBoundedWal(dir, create);
  if (!String(dir).startsWith("memory://")) await dropUnusedTemplates(pg);
  return pg;
}
