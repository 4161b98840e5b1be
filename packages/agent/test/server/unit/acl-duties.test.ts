import { GLOBAL_MANAGEMENT_POLICY, managementToken } from "@cairn/api";
import { type Command, encodeCommand, StateStore } from "@cairn/fsm";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { AclDuties } from "../../../src/server/leader/acl-duties.js";

function setup(aclEnabled: boolean) {
  const store = new StateStore();
  let index = 0;
  let now = Date.parse("2026-01-01T00:00:00Z");
  const duties = new AclDuties({
    store,
    apply: async (command: Command) => store.apply(++index, encodeCommand(command)),
    log: pino({ level: "silent" }),
    now: () => now,
    aclEnabled,
    initialManagement: "root-secret",
    intervalMs: 60_000,
    uuid: () => `00000000-0000-0000-0000-${String(index).padStart(12, "0")}`,
  });
  const apply = (command: Command) => store.apply(++index, encodeCommand(command));
  return { store, duties, apply, advance: (ms: number) => (now += ms), now: () => now };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("leader ACL duties", () => {
  it("create the built-ins and the initial management token at leadership (ACLs on)", async () => {
    const { store, duties } = setup(true);
    duties.start();
    await settle();
    duties.stop();
    const acl = store.view().acl();
    expect(acl.tokenBySecret("anonymous")?.Policies).toEqual([]);
    expect(acl.tokenBySecret("root-secret")?.Policies).toEqual([{ ID: GLOBAL_MANAGEMENT_POLICY.ID }]);
    expect(acl.bootstrapIndex).toBeDefined();
  });

  it("do not create them with ACLs off", async () => {
    const { store, duties } = setup(false);
    duties.start();
    await settle();
    duties.stop();
    expect(store.view().acl().tokenBySecret("root-secret")).toBeUndefined();
  });

  it("reap expired tokens and purge namespaces marked for deletion", async () => {
    const { store, duties, apply, advance, now } = setup(true);
    const expiring = {
      ...managementToken("aaaaaaaa-0000-0000-0000-000000000001", "s-exp", "short"),
      Policies: [],
      ExpirationTime: new Date(now() + 120_000).toISOString(),
    };
    apply({ v: 1, type: "acl.token.set", op: "create", token: expiring, now: now() });
    apply({ v: 1, type: "namespace.set", op: "create", namespace: { Name: "old", Description: "" } });
    apply({ v: 1, type: "kv.set", ns: "old", key: "k", value: new Uint8Array([1]), flags: 0n });
    apply({ v: 1, type: "namespace.delete", name: "old", now: now() });
    await duties.tick();
    expect(store.view().acl().token(expiring.AccessorID)).toBeDefined();
    expect(store.view().acl().namespace("old")).toBeUndefined();
    expect(store.view().kvGet("k", "old").value).toBeUndefined();
    advance(121_000);
    await duties.tick();
    expect(store.view().acl().token(expiring.AccessorID)).toBeUndefined();
  });
});
