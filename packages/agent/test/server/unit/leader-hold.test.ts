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

  it("retries a write refused by a non-leader, locally or remotely", async () => {
    const c = clock();
    const errors: unknown[] = [
      new NotLeaderError("no-leader", null, null),
      new RpcError("remote", "not the leader", "NotLeaderError"),
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
