import { describe, expect, it } from "vitest";
import type { AutopilotConfigSpec } from "../src/autopilot/autopilot.js";
import { decodeCommand, encodeCommand } from "../src/commands/codec.js";
import type { Command } from "../src/commands/types.js";
import { StateStore } from "../src/state-store.js";

const spec: AutopilotConfigSpec = {
  CleanupDeadServers: true,
  LastContactThresholdNs: 200_000_000,
  MaxTrailingLogs: 250,
  MinQuorum: 0,
  ServerStabilizationTimeNs: 10_000_000_000,
  RedundancyZoneTag: "",
  DisableUpgradeMigration: false,
  UpgradeVersionTag: "",
};

function store() {
  const s = new StateStore();
  let index = 0;
  const set = (extra: Partial<Extract<Command, { type: "autopilot.set" }>> = {}) =>
    s.apply(++index, encodeCommand({ v: 1, type: "autopilot.set", config: spec, ...extra }));
  return { s, set };
}

describe("autopilot configuration in the state machine", () => {
  it("is absent until set, then carries its indexes", () => {
    const { s, set } = store();
    expect(s.view().autopilotConfig()).toBeUndefined();
    expect(set()).toBe(true);
    expect(s.view().autopilotConfig()).toEqual({ ...spec, CreateIndex: 1, ModifyIndex: 1 });
    expect(set({ config: { ...spec, MinQuorum: 3 } })).toBe(true);
    expect(s.view().autopilotConfig()).toMatchObject({ MinQuorum: 3, CreateIndex: 1, ModifyIndex: 2 });
  });

  it("check-and-set on ModifyIndex; the leader's initial write never overwrites", () => {
    const { s, set } = store();
    expect(set({ onlyIfAbsent: true })).toBe(true);
    expect(set({ onlyIfAbsent: true, config: { ...spec, MaxTrailingLogs: 1 } })).toBe(false);
    expect(set({ cas: 7, config: { ...spec, MaxTrailingLogs: 2 } })).toBe(false);
    expect(s.view().autopilotConfig()?.MaxTrailingLogs).toBe(250);
    expect(set({ cas: 1, config: { ...spec, MaxTrailingLogs: 3 } })).toBe(true);
    expect(s.view().autopilotConfig()?.MaxTrailingLogs).toBe(3);
  });

  it("round-trips through the codec and snapshots", () => {
    const command: Command = { v: 1, type: "autopilot.set", config: spec, cas: 4 };
    expect(decodeCommand(encodeCommand(command))).toEqual(command);
    const { s, set } = store();
    set();
    const copy = new StateStore();
    copy.restoreSync(s.snapshot());
    expect(copy.view().autopilotConfig()).toEqual(s.view().autopilotConfig());
  });

  it("refuses a configuration missing its numbers", () => {
    const bad = encodeCommand({ v: 1, type: "autopilot.set", config: { CleanupDeadServers: true } } as never);
    expect(() => decodeCommand(bad)).toThrow(/LastContactThresholdNs/);
  });
});
