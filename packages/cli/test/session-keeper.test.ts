import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type SessionCalls, SessionKeeper } from "../src/lock/session.js";

/** Scripted session calls: each renew answers the next scripted value (a TTL, gone, or a failure). */
function fakeCalls(renewals: (string | undefined | Error)[]) {
  const log: string[] = [];
  const calls: SessionCalls = {
    create: async (spec) => {
      log.push(`create ${spec.ttl} ${spec.behavior}`);
      return "sess-1";
    },
    renew: async (id) => {
      const next = renewals.shift();
      log.push(`renew ${id} at ${Date.now()}`);
      if (next instanceof Error) throw next;
      return next;
    },
    destroy: async (id) => {
      log.push(`destroy ${id}`);
    },
  };
  return { calls, log };
}

describe("SessionKeeper", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("renews every half TTL, adopting the TTL the server grants", async () => {
    const { calls, log } = fakeCalls(["15s", "30s", "30s"]);
    const keeper = await SessionKeeper.start(calls, { name: "n", ttl: "15s", behavior: "release" });
    expect(keeper.id).toBe("sess-1");
    await vi.advanceTimersByTimeAsync(7_500);
    await vi.advanceTimersByTimeAsync(7_500);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(log).toEqual([
      "create 15s release",
      "renew sess-1 at 7500",
      "renew sess-1 at 15000",
      "renew sess-1 at 30000",
    ]);
    await keeper.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(log.at(-1)).toBe("destroy sess-1");
    expect(keeper.gone.aborted).toBe(false);
  });

  it("retries soon after a failed renewal and reports a session the server no longer has", async () => {
    const { calls, log } = fakeCalls([new Error("connection reset"), undefined]);
    const keeper = await SessionKeeper.start(calls, { name: "n", ttl: "10s", behavior: "delete" });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(keeper.gone.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(log.slice(1)).toEqual(["renew sess-1 at 5000", "renew sess-1 at 6000"]);
    expect(keeper.gone.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(log).toHaveLength(3);
  });
});
