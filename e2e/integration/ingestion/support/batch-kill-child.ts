// Child process for the batch-boundary kill test: runs the ingestion runner and, right after
// the given indexing batch is committed, announces it and waits to be SIGKILLed. Phase "grep":
// once the file's grep index (lib/retrieval/grep-index.ts) holds at least <batch> chunks.
//   node --conditions=react-server --import tsx batch-kill-child.ts <dataDir> <databaseUrl|""> <phase> <batch>
import { openDatabase } from "@/lib/db/client";
import { startIngestionRunner } from "@/lib/ingestion/runner";

const [dataDir, databaseUrl, phase, batch] = process.argv.slice(2);
const handle = await openDatabase({ databaseUrl: databaseUrl || undefined, dataDir: dataDir! });
await startIngestionRunner({
  db: handle.prisma,
  dataDir,
  exclusive: !databaseUrl,
  pollMs: 50,
  // Small transactions, so that a few hundred chunks take several batches.
  batchMs: 5,
  onBatch: async (info) => {
    if (info.phase === phase && info.batch === Number(batch)) {
      process.stdout.write(`BOUNDARY ${info.phase} ${info.batch} ${info.done}\n`);
      await new Promise(() => {});
    }
  },
  onGrepBatch: async (_fileId, added) => {
    if (phase === "grep" && added >= Number(batch)) {
      process.stdout.write(`BOUNDARY grep 1 ${added}\n`);
      await new Promise(() => {});
    }
  },
});
setInterval(() => {}, 1000);
