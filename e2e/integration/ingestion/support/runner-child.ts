// Child process for the kill test: opens the database, runs the ingestion runner and announces
// when it reaches the indexing stage, so the parent can SIGKILL it mid-job.
//   node --conditions=react-server --import tsx runner-child.ts <dataDir> [databaseUrl]
import { openDatabase } from "@/lib/db/client";
import { startIngestionRunner } from "@/lib/ingestion/runner";

const [dataDir, databaseUrl] = process.argv.slice(2);
const handle = await openDatabase({ databaseUrl: databaseUrl || undefined, dataDir: dataDir! });
await startIngestionRunner({
  db: handle.prisma,
  dataDir,
  exclusive: !databaseUrl,
  pollMs: 50,
  onStage: async (stage) => {
    process.stdout.write(`STAGE ${stage}\n`);
    // Give the parent time to kill us while the chunks are being written.
    if (stage === "indexing") await new Promise((r) => setTimeout(r, 150));
  },
});
process.stdout.write("READY\n");
setInterval(() => {}, 1000);
