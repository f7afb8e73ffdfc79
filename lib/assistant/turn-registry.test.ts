import { describe, expect, it } from "vitest";
import { isAppError } from "@/lib/errors";
import { activeTurnCount, assertAcceptingTurns, drainChatTurns, isShutdownAbort, resetTurnRegistryForTests, trackTurn } from "./turn-registry";

// Graceful stop of chat turns (SIGTERM, issue 24): a turn that ends within the grace period is
// left alone, one that does not is aborted with SERVER_STOPPING, and no new turn starts.
describe("turn registry", () => {
  it("lets quick turns finish, aborts slow ones with SERVER_STOPPING, then refuses new turns", async () => {
    resetTurnRegistryForTests();
    const seen: string[] = [];
    trackTurn("quick", async (shutdown) => {
      await new Promise((r) => setTimeout(r, 20));
      seen.push(`quick:${shutdown.aborted}`);
    });
    trackTurn("slow", (shutdown) =>
      new Promise<void>((resolve) => {
        shutdown.addEventListener("abort", () => {
          seen.push(`slow:${isShutdownAbort(AbortSignal.any([shutdown]))}`);
          resolve();
        });
      }),
    );
    expect(activeTurnCount()).toBe(2);
    expect(() => assertAcceptingTurns()).not.toThrow();

    const result = await drainChatTurns(200);
    expect(result).toEqual({ finished: 1, aborted: 1 });
    expect(seen).toEqual(["quick:false", "slow:true"]);
    expect(activeTurnCount()).toBe(0);
    try {
      assertAcceptingTurns();
      expect.unreachable();
    } catch (e) {
      expect(isAppError(e) && e.code).toBe("SERVER_STOPPING");
    }
    resetTurnRegistryForTests();
  });

  it("a client that leaves is not a shutdown", () => {
    const c = new AbortController();
    c.abort();
    expect(isShutdownAbort(c.signal)).toBe(false);
  });
});
