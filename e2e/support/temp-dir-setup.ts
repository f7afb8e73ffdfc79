// Vitest global setup of the integration and multi projects:
// - every temporary directory of the run (the tests' databases, uploads, servers' data) lives
//   under one directory that is removed when the run ends. scripts/test-all.sh does the same for
//   a whole test run; this covers running the tests directly with `npx vitest`.
// - one migrated database is made first and every fresh database of the run starts as a copy of
//   it: an embedded one through KA_TEST_PGLITE_TEMPLATE (lib/db/client.ts copies the directory),
//   one on the PostgreSQL server of TEST_DATABASE_URL through KA_TEST_PG_TEMPLATE
//   (`CREATE DATABASE … TEMPLATE`, e2e/support/test-env.ts). initdb and the migrations took
//   several seconds for each of the suite's hundred-odd databases.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { openDatabase } from "@/lib/db/client";

export default async function setup(): Promise<() => Promise<void>> {
  const dir = mkdtempSync(path.join(tmpdir(), "ka-vitest-"));
  const saved = { TMPDIR: process.env.TMPDIR, KA_TEST_PGLITE_TEMPLATE: process.env.KA_TEST_PGLITE_TEMPLATE, KA_TEST_PG_TEMPLATE: process.env.KA_TEST_PG_TEMPLATE };
  // Read by os.tmpdir() in the test workers and in the servers the tests start.
  process.env.TMPDIR = dir;

  const templateDir = path.join(dir, "pglite-template");
  delete process.env.KA_TEST_PGLITE_TEMPLATE;
  await (await openDatabase({ dataDir: templateDir, pgliteWorker: false })).close();
  process.env.KA_TEST_PGLITE_TEMPLATE = path.join(templateDir, "pglite");

  let pgTemplate: string | undefined;
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) {
    pgTemplate = `ka_template_${process.pid}_${Date.now()}`;
    await adminQuery(serverUrl, `CREATE DATABASE ${pgTemplate}`);
    const url = new URL(serverUrl);
    url.pathname = `/${pgTemplate}`;
    await (await openDatabase({ databaseUrl: url.toString() })).close();
    process.env.KA_TEST_PG_TEMPLATE = pgTemplate;
  }

  return async () => {
    if (serverUrl && pgTemplate) await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${pgTemplate}`).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}
