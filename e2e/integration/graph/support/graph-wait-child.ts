// Child process for the graph-queue kill test: one indexing slot, and the first graph stage held
// before its write, so the next file's graph waits its turn (`pending`). It prints `GRAPH <file>`
// when a graph stage reaches its write and `PENDING <file>` once a searchable file's graph is
// waiting, so the parent can SIGKILL it with a graph pending. Only the files of the test's
// knowledge base are reported: on a PostgreSQL server other test files share the database.
//   node --conditions=react-server --import tsx support/graph-wait-child.ts <dataDir> <databaseUrl or ""> <knowledgeId>
import { openDatabase } from "@/lib/db/client";
import { startIngestionRunner } from "@/lib/ingestion/runner";

const [dataDir, databaseUrl, knowledgeId] = process.argv.slice(2);
const handle = await openDatabase({ databaseUrl: databaseUrl || undefined, dataDir: dataDir! });
const db = handle.prisma;
await startIngestionRunner({
  db,
  dataDir,
  exclusive: !databaseUrl,
  pollMs: 50,
  concurrency: 1,
  onGraphStage: async (fileId) => {
    const file = await db.knowledgeFile.findUnique({ where: { id: fileId }, select: { knowledgeId: true } });
    if (file?.knowledgeId !== knowledgeId) return; // another test's file (shared PostgreSQL database)
    process.stdout.write(`GRAPH ${fileId}\n`);
    await new Promise(() => {}); // held until the parent kills the process
  },
});
setInterval(() => {
  void db.knowledgeFile
    .findMany({ where: { knowledgeId, status: "success", graphStatus: "pending" }, select: { id: true } })
    .then((rows) => rows.forEach((r) => process.stdout.write(`PENDING ${r.id}\n`)))
    .catch(() => {});
}, 100);
process.stdout.write("READY\n");
