// Runs the app's route handlers plus the server boot (database, sample, ingestion runner) as a
// separate process for tests that must kill a real server mid-work:
//   node --conditions=react-server --import tsx e2e/support/serve-app.ts --port 0
// Configuration comes from the environment (DATA_DIR, AUTH_MODE, …). Prints `listening <url>`.
import path from "node:path";
import { bootServer } from "@/lib/server/boot";
import { keepAliveTimeoutMs } from "../../scripts/server-node-flags";
import { startTestApp } from "./http-app";

const portArg = process.argv.indexOf("--port");
const port = portArg >= 0 ? Number(process.argv[portArg + 1]) : 0;

await bootServer();
// Connections stay open as long as on the production server (`npm start`), for `bench:chat`.
const app = await startTestApp(path.resolve(process.cwd(), "app"), port, { keepAliveTimeoutMs: keepAliveTimeoutMs() });
console.log(`listening ${app.baseUrl}`);
