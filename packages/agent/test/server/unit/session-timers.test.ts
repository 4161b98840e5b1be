import { COMMAND_VERSION, encodeCommand, type Session, StateStore } from "@cairn/fsm";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { SessionTimers } from "../../../src/server/leader/session-timers.js";

/** Manual timers: the test decides when each fires. */
function manualTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 1;
  return {
    pending,
    setTimer: (fn: () => void, ms: number) => {
      pending.set(next, { fn, ms });
      return next++;
    },
    clearTimer: (h: unknown) => void pending.delete(h as number),
    fire(): void {
      const all = [...pending.values()];
      pending.clear();
      for (const t of all) t.fn();
    },
  };
}

function storeWithSession(ttl: string): { store: StateStore; id: string } {
  const store = new StateStore();
  let index = 0;
  const apply = (c: Parameters<typeof encodeCommand>[0]) => store.apply(++index, encodeCommand(c));
  apply({
    v: COMMAND_VERSION,
    type: "catalog.register",
    registration: {
      Node: "n1",
      Address: "127.0.0.1",
      Checks: [{ Node: "n1", CheckID: "serfHealth", Name: "Serf Health Status", Status: "passing" }],
    },
    now: 0,
  });
  const id = "9a0b7c1e-0000-4000-8000-000000000001";
  apply({
    v: COMMAND_VERSION,
    type: "session.create",
    session: { ID: id, Node: "n1", TTL: ttl, Checks: ["serfHealth"] },
    now: 0,
  });
  return { store, id };
}

describe("SessionTimers", () => {
  it("arms twice the TTL for every session when leadership starts, and none before", () => {
    const { store } = storeWithSession("15s");
    const t = manualTimers();
    const timers = new SessionTimers({
      store,
      invalidate: async () => {},
      log: pino({ level: "silent" }),
      ...t,
    });
    expect(t.pending.size).toBe(0);
    timers.start();
    expect([...t.pending.values()].map((p) => p.ms)).toEqual([30_000]);
  });

  it("invalidates an expired session that still exists, once", async () => {
    const { store, id } = storeWithSession("10s");
    const t = manualTimers();
    const invalidated: Session[] = [];
    const timers = new SessionTimers({
      store,
      invalidate: async (s) => void invalidated.push(s),
      log: pino({ level: "silent" }),
      ...t,
    });
    timers.start();
    t.fire();
    expect(invalidated.map((s) => s.ID)).toEqual([id]);
    expect(timers.size).toBe(0);
  });

  it("restarts the timer on renew and drops it when the session is destroyed", () => {
    const { store, id } = storeWithSession("10s");
    const t = manualTimers();
    const timers = new SessionTimers({
      store,
      invalidate: async () => {},
      log: pino({ level: "silent" }),
      ...t,
    });
    timers.start();
    const first = [...t.pending.keys()];
    timers.renew(store.view().sessionGet(id, "*").value!);
    expect([...t.pending.keys()]).not.toEqual(first);
    expect(t.pending.size).toBe(1);
    timers.applied({ v: COMMAND_VERSION, type: "session.destroy", id, now: 0 }, true);
    expect(t.pending.size).toBe(0);
  });

  it("ignores sessions without a TTL and stops everything when leadership ends", () => {
    const { store } = storeWithSession("");
    const t = manualTimers();
    const timers = new SessionTimers({
      store,
      invalidate: async () => {},
      log: pino({ level: "silent" }),
      ...t,
    });
    timers.start();
    expect(t.pending.size).toBe(0);
    const ttl = storeWithSession("20s");
    const other = new SessionTimers({
      store: ttl.store,
      invalidate: async () => {},
      log: pino({ level: "silent" }),
      ...t,
    });
    other.start();
    expect(t.pending.size).toBe(1);
    other.stop();
    expect(t.pending.size).toBe(0);
  });
});
