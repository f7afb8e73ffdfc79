import { getDb } from "@/lib/db/client";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// Liveness plus a database round trip; used by the e2e web servers and deployments.
export async function GET() {
  try {
    const db = await getDb();
    await db.$queryRaw`SELECT 1`;
    return Response.json({ code: 0, msg: "success", data: { status: "ok" } });
  } catch {
    return Response.json({ code: "INTERNAL_ERROR", msg: "database unavailable", data: null }, { status: 503 });
  }
}
