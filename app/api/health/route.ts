import { pingDb } from "@/lib/db/client";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Longer than any single statement should take; a database stuck past it is reported down. */
const DB_PING_TIMEOUT_MS = 5_000;

// Liveness plus a database round trip; used by the e2e web servers and deployments. On embedded
// PGlite the round trip is a ping of its worker thread, which does not wait behind indexing
// batches or queued statements (lib/db/client.ts pingDb): health says the process and the
// database thread are alive, not how long the queue is.
export async function GET() {
  try {
    await pingDb(DB_PING_TIMEOUT_MS);
    return Response.json({ code: 0, msg: "success", data: { status: "ok" } });
  } catch {
    return Response.json({ code: "INTERNAL_ERROR", msg: "database unavailable", data: null }, { status: 503 });
  }
}
