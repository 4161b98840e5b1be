import { type PrimaryFetch, ReplicationStatus } from "@cairn/api";
import { type Command, encodeCommand, StateStore } from "@cairn/fsm";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { ReplicationDuty, type Schedule } from "../../../src/server/leader/replication-duty.js";

/** A primary with nothing in it (every list empty), or one that cannot be reached. */
const emptyPrimary: PrimaryFetch = async () => ({ index: 7, body: [] });
const downPrimary: PrimaryFetch = async () => {
  throw new Error('rpc error: no server of datacenter "dc1" could be reached');
};

/** A primary holding one policy whose rules do not parse here. */
const badPolicyPrimary: PrimaryFetch = async (path) => {
  if (path.startsWith("/v1/acl/policies"))
    return { index: 9, body: [{ ID: "p-1", Name: "broken", Hash: "h" }] };
  if (path.startsWith("/v1/acl/policy/"))
    return { index: 9, body: { ID: "p-1", Name: "broken", Rules: 'key "a" { policy = "sometimes" }' } };
  return { index: 9, body: [] };
};

function setup(primary: PrimaryFetch) {
  const store = new StateStore();
  let index = 0;
  let now = Date.parse("2026-01-01T00:00:00Z");
  // The schedule is the test's: it records what was asked and runs a timer only when told.
  const timers: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  const schedule: Schedule = (fn, ms) => {
    const t = { fn, ms, cancelled: false };
    timers.push(t);
    return () => {
      t.cancelled = true;
    };
  };
  const status = new ReplicationStatus(true, "dc1", true);
  const duty = new ReplicationDuty({
    store,
    apply: async (command: Command) => store.apply(++index, encodeCommand(command)),
    primary,
    status,
    acl: true,
    intervalMs: 30_000,
    initialDelayMs: 60_000,
    applyRate: 100,
    now: () => (now += 1000),
    log: pino({ level: "silent" }),
    schedule,
    wait: async () => {},
  });
  return { duty, status, timers, store };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("the secondary leader's replication duty", () => {
  it("first runs initialDelay after leadership, then every interval after a cycle ends", async () => {
    const { duty, status, timers } = setup(emptyPrimary);
    duty.start();
    expect(status.json().Running).toBe(true);
    expect(timers.map((t) => t.ms)).toEqual([60_000]);
    timers[0]!.fn();
    await settle();
    expect(timers.map((t) => t.ms)).toEqual([60_000, 30_000]);
    const st = status.json();
    expect(st.LastSuccess).not.toBe("0001-01-01T00:00:00Z");
    expect(st.LastError).toBe("0001-01-01T00:00:00Z");
    expect(st).toMatchObject({ ReplicatedIndex: 7, ReplicatedRoleIndex: 7, ReplicatedTokenIndex: 7 });
    duty.stop();
    expect(timers[1]!.cancelled).toBe(true);
    expect(status.json().Running).toBe(false);
  });

  it("records a failed cycle and keeps going", async () => {
    const { duty, status, timers } = setup(downPrimary);
    duty.start();
    timers[0]!.fn();
    await settle();
    const st = status.json();
    expect(st.LastSuccess).toBe("0001-01-01T00:00:00Z");
    expect(st.LastError).not.toBe("0001-01-01T00:00:00Z");
    expect(st.LastErrorMessage).toMatch(/could be reached/);
    expect(timers).toHaveLength(2);
    duty.stop();
  });

  it("counts an object whose rules do not parse in LastErrorMessage and stores none of it", async () => {
    const { duty, status, store } = setup(badPolicyPrimary);
    await duty.runOnce();
    const st = status.json();
    expect(st.LastErrorMessage).toMatch(
      /^1 object not replicated: policy "broken" \(p-1\): rules do not parse/,
    );
    expect(st.LastError > st.LastSuccess).toBe(true);
    expect(st.ReplicatedIndex).toBe(9);
    expect(store.view().acl().policy("p-1")).toBeUndefined();
  });

  it("a cycle that ends after leadership was lost schedules nothing", async () => {
    const { duty, timers } = setup(emptyPrimary);
    duty.start();
    timers[0]!.fn();
    duty.stop();
    await settle();
    expect(timers).toHaveLength(1);
    // runOnce still works on demand (tests and benchmarks).
    await duty.runOnce();
  });
});
