import "server-only";
import { AppError } from "@/lib/errors";

// The chat turns this process is streaming, for a graceful stop (SIGTERM, issue 24): no new
// turn starts once draining began (SERVER_STOPPING), running ones get SHUTDOWN_GRACE_MS to
// finish, then are aborted with SERVER_STOPPING as the reason: the turn saves what it has as
// `aborted` and the client's stream ends with an `error` event instead of a cut connection.
// On globalThis: Next bundles the route and the boot module separately.

interface Registry {
  draining: boolean;
  active: Map<string, { controller: AbortController; done: Promise<void> }>;
}

const g = globalThis as unknown as { __kaChatTurns?: Registry };
const reg = (g.__kaChatTurns ??= { draining: false, active: new Map() });

export function assertAcceptingTurns(): void {
  if (reg.draining) throw new AppError("SERVER_STOPPING");
}

/** Registers a running turn; the signal fires when the server stops before the turn ends. */
export function trackTurn(turnId: string, run: (shutdown: AbortSignal) => Promise<void>): void {
  const controller = new AbortController();
  const done = run(controller.signal).finally(() => reg.active.delete(turnId));
  reg.active.set(turnId, { controller, done });
}

/** By code, not instanceof: the boot module that aborts and the route that checks are bundled
 *  apart by Next, each with its own copy of the AppError class. */
export function isShutdownAbort(signal: AbortSignal): boolean {
  return signal.aborted && (signal.reason as { code?: unknown } | undefined)?.code === "SERVER_STOPPING";
}

export function activeTurnCount(): number {
  return reg.active.size;
}

/** Stops new turns, waits up to graceMs for running ones, aborts the rest and waits for them to save. */
export async function drainChatTurns(graceMs: number): Promise<{ finished: number; aborted: number }> {
  reg.draining = true;
  const all = [...reg.active.values()];
  const settled = Promise.allSettled(all.map((t) => t.done));
  await Promise.race([settled, new Promise((r) => setTimeout(r, graceMs))]);
  const left = [...reg.active.values()];
  for (const t of left) t.controller.abort(new AppError("SERVER_STOPPING"));
  // Saving the aborted answers is a statement each; do not hold the stop forever.
  await Promise.race([Promise.allSettled(left.map((t) => t.done)), new Promise((r) => setTimeout(r, 5_000))]);
  return { finished: all.length - left.length, aborted: left.length };
}

/** Tests: back to accepting turns. */
export function resetTurnRegistryForTests(): void {
  reg.draining = false;
}
