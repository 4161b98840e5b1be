import { COMMAND_VERSION, type Command, encodeCommand, StateStore } from "@cairn/fsm";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { TombstoneGc } from "../../../src/server/leader/tombstone-gc.js";

describe("TombstoneGc", () => {
  it("reaps up to the index of each deleting window once it is older than the TTL", () => {
    let now = 0;
    const store = new StateStore();
    const apply = (index: number, c: Command) => store.apply(index, encodeCommand(c));
    apply(10, { v: COMMAND_VERSION, type: "kv.set", key: "a", value: Buffer.from("1"), flags: 0n });
    const reaped: number[] = [];
    const gc = new TombstoneGc(
      { store, reap: async (i) => void reaped.push(i), log: pino({ level: "silent" }), now: () => now },
      { ttlMs: 1_000, granularityMs: 60_000 }, // ticks are driven by hand below
    );
    gc.start();
    gc.tick(); // hint {0, 10}: whatever earlier leaders left behind
    now = 500;
    const del: Command = { v: COMMAND_VERSION, type: "kv.delete", key: "a" };
    apply(20, del);
    gc.applied(del);
    gc.tick(); // hint {500, 20}
    now = 1_000;
    gc.tick();
    expect(reaped).toEqual([10]);
    now = 1_400;
    gc.tick();
    expect(reaped).toEqual([10]);
    now = 1_500;
    gc.tick();
    expect(reaped).toEqual([10, 20]);
    // Nothing deleted since: no more reaps, so an idle cluster writes nothing.
    now = 10_000;
    gc.tick();
    expect(reaped).toEqual([10, 20]);
    gc.stop();
  });
});
