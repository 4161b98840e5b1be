import { NotLeaderError, RaftTimeoutError, RpcError } from "@cairn/raft";
import { describe, expect, it } from "vitest";
import { holdForLeader } from "../../../src/server/leader-hold.js";

/** A virtual clock: sleeping advances it, so the hold time is exact and the test instant. */
function clock() {
  let t = 0;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms;
    },
  };
}

const timeout = () => new Error("No cluster leader");

describe("holdForLeader", () => {
  it("retries while no leader can be reached, then answers", async () => {
    const c = clock();
    let calls = 0;
    const value = await holdForLeader(
      { holdMs: 7_000, idempotent: false, ...c },
      async () => {
        calls++;
        return calls < 4 ? { done: false } : { done: true, value: "ok" };
      },
      timeout,
    );
    expect(value).toBe("ok");
    expect(calls).toBe(4);
  });

  it("gives up after the hold time with the timeout error", async () => {
    const c = clock();
    await expect(
      holdForLeader({ holdMs: 7_000, idempotent: true, ...c }, async () => ({ done: false }), timeout),
    ).rejects.toThrow("No cluster leader");
    expect(c.now()).toBe(7_000);
  });

  it("retries a write refused by a non-leader, locally or remotely, or that could not be sent", async () => {
    const c = clock();
    const errors: unknown[] = [
      new NotLeaderError("no-leader", null, null),
      new RpcError("remote", "not the leader", "NotLeaderError"),
      new RpcError("unconnected", "cannot connect to s1: connect ECONNREFUSED"),
    ];
    const value = await holdForLeader(
      { holdMs: 7_000, idempotent: false, ...c },
      async () => {
        const err = errors.shift();
        if (err) throw err;
        return { done: true, value: 1 };
      },
      timeout,
    );
    expect(value).toBe(1);
  });

  it("does not retry a write whose fate is unknown, but retries a read", async () => {
    const lost = new RpcError("unreachable", "connection dropped");
    await expect(
      holdForLeader(
        { holdMs: 7_000, idempotent: false, ...clock() },
        async () => {
          throw lost;
        },
        timeout,
      ),
    ).rejects.toBe(lost);
    let calls = 0;
    const value = await holdForLeader(
      { holdMs: 7_000, idempotent: true, ...clock() },
      async () => {
        if (calls++ === 0) throw new RaftTimeoutError("read index not confirmed");
        return { done: true, value: "read" };
      },
      timeout,
    );
    expect(value).toBe("read");
  });
});

describe("holdForLeader woken by a leader", () => {
  /** A leader-change source, and a sleep that never ends on its own: only the event can wake the request. */
  function leaderEvents() {
    const listeners = new Set<() => void>();
    return {
      onLeader: (listener: () => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      elect: () => {
        for (const l of listeners) l();
      },
      listeners,
    };
  }
  const forever = () => new Promise<void>(() => {});

  it("retries at once when a leader becomes known, not at the end of its back-off", async () => {
    const events = leaderEvents();
    let leader = false;
    let calls = 0;
    const held = holdForLeader(
      { holdMs: 7_000, idempotent: false, now: () => 0, sleep: forever, onLeader: events.onLeader },
      async () => {
        calls++;
        return leader ? { done: true, value: "written" } : { done: false };
      },
      timeout,
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(1);
    leader = true;
    events.elect();
    await expect(held).resolves.toBe("written");
    expect(calls).toBe(2);
    expect(events.listeners.size).toBe(0);
  });

  it("retries without sleeping when the leader changed during the failed attempt", async () => {
    const events = leaderEvents();
    const errors: unknown[] = [new RpcError("remote", "leadership is being transferred", "NotLeaderError")];
    const value = await holdForLeader(
      { holdMs: 7_000, idempotent: false, now: () => 0, sleep: forever, onLeader: events.onLeader },
      async () => {
        const err = errors.shift();
        if (err) {
          events.elect();
          throw err;
        }
        return { done: true, value: 2 };
      },
      timeout,
    );
    expect(value).toBe(2);
  });

  it("unsubscribes when it gives up", async () => {
    const events = leaderEvents();
    const c = clock();
    await expect(
      holdForLeader(
        { holdMs: 1_000, idempotent: true, ...c, onLeader: events.onLeader },
        async () => ({ done: false }),
        timeout,
      ),
    ).rejects.toThrow("No cluster leader");
    expect(events.listeners.size).toBe(0);
  });
});
