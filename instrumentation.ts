// Next.js start-up hook: runs once per server process before it serves requests.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // next build also evaluates this file; the database and job runner belong to the server only.
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  const { bootServer } = await import("@/lib/server/boot");
  await bootServer();
}
