import { describe, expect, it } from "vitest";
import type { AclPolicySpec, AclTokenSpec, ApplyResult } from "../src/index.js";
import { GLOBAL_MANAGEMENT_POLICY_ID, StateStore } from "../src/index.js";
import { Harness } from "./helpers.js";

const gm: AclPolicySpec = {
  ID: GLOBAL_MANAGEMENT_POLICY_ID,
  Name: "global-management",
  Description: "Builtin Policy that grants unlimited access",
  Rules: 'acl = "write"',
  Datacenters: [],
  Namespace: "default",
};

const token = (over: Partial<AclTokenSpec>): AclTokenSpec => ({
  AccessorID: "a1",
  SecretID: "s1",
  Description: "",
  Policies: [],
  Roles: [],
  ServiceIdentities: [],
  NodeIdentities: [],
  Local: false,
  AuthMethod: "",
  ExpirationTime: "",
  Namespace: "default",
  Type: "",
  Rules: "",
  ...over,
});

const anonymous = token({ AccessorID: "00000000-0000-0000-0000-000000000002", SecretID: "anonymous" });

const policy = (id: string, name: string, ns = "default"): AclPolicySpec => ({
  ID: id,
  Name: name,
  Description: "",
  Rules: 'key_prefix "" { policy = "read" }',
  Datacenters: [],
  Namespace: ns,
});

const err = (r: ApplyResult) => (typeof r === "object" && "error" in r ? r.error : undefined);

describe("fsm acl tables", () => {
  it("bootstraps once, creating the built-ins", () => {
    const h = new Harness();
    expect(
      h.run("acl.bootstrap", { token: token({ Policies: [{ ID: gm.ID }] }), policy: gm, now: h.now }),
    ).toBe(true);
    const acl = h.store.view().acl();
    expect(acl.bootstrapIndex).toBe(1);
    expect(acl.policy(gm.ID)?.Name).toBe("global-management");
    expect(acl.tokenBySecret("s1")?.CreateTime).toBe(new Date(h.now).toISOString());
    const again = h.run("acl.bootstrap", {
      token: token({ AccessorID: "a2", SecretID: "s2" }),
      policy: gm,
      now: h.now,
    });
    expect(err(again)).toBe("ACL bootstrap no longer allowed (reset index: 1)");
    expect(h.store.view().acl().token("a2")).toBeUndefined();
  });

  it("init creates anonymous and the initial management token (which bootstraps)", () => {
    const h = new Harness();
    const initial = token({ AccessorID: "m", SecretID: "root", Policies: [{ ID: gm.ID }] });
    expect(h.run("acl.init", { policy: gm, anonymous, initialManagement: initial, now: h.now })).toBe(true);
    expect(h.run("acl.init", { policy: gm, anonymous, initialManagement: initial, now: h.now })).toBe(true);
    const acl = h.store.view().acl();
    expect(acl.tokenBySecret("anonymous")?.AccessorID).toBe(anonymous.AccessorID);
    expect(acl.tokenBySecret("root")?.AccessorID).toBe("m");
    expect(acl.bootstrapIndex).toBe(1);
  });

  it("refuses links to missing policies and duplicate secrets, storing nothing", () => {
    const h = new Harness();
    const r = h.run("acl.token.set", {
      op: "create",
      token: token({ Policies: [{ ID: "nope" }] }),
      now: h.now,
    });
    expect(err(r)).toBe('No such ACL policy with ID "nope"');
    expect(h.store.view().acl().token("a1")).toBeUndefined();
    expect(h.run("acl.token.set", { op: "create", token: token({}), now: h.now })).toBe(true);
    const dup = h.run("acl.token.set", { op: "create", token: token({ AccessorID: "a2" }), now: h.now });
    expect(err(dup)).toBe("Invalid Token: SecretID is already in use");
  });

  it("resolves an ExpirationTTL against the command's now at apply, keeping explicit times as given", () => {
    const h = new Harness();
    const leaderNow = h.now + 5_000;
    const ttl = 10 * 60_000;
    const r = h.run("acl.token.set", {
      op: "create",
      token: token({ ExpirationTTL: ttl }),
      now: leaderNow,
    });
    expect(r).toBe(true);
    const stored = h.store.view().acl().token("a1");
    expect(stored?.ExpirationTime).toBe(new Date(leaderNow + ttl).toISOString());
    expect(stored).not.toHaveProperty("ExpirationTTL");
    expect(
      h.store
        .view()
        .acl()
        .expiredTokens(leaderNow + ttl, 10),
    ).toEqual([]);
    expect(
      h.store
        .view()
        .acl()
        .expiredTokens(leaderNow + ttl + 1, 10),
    ).toEqual(["a1"]);

    const explicit = "2030-01-01T00:00:00.000Z";
    const t2 = token({ AccessorID: "a2", SecretID: "s2", ExpirationTime: explicit });
    expect(h.run("acl.token.set", { op: "create", token: t2, now: leaderNow })).toBe(true);
    expect(h.store.view().acl().token("a2")?.ExpirationTime).toBe(explicit);

    const both = token({ AccessorID: "a3", SecretID: "s3", ExpirationTime: explicit, ExpirationTTL: ttl });
    expect(err(h.run("acl.token.set", { op: "create", token: both, now: leaderNow }))).toBe(
      "ExpirationTTL and ExpirationTime cannot both be set",
    );
    expect(h.store.view().acl().token("a3")).toBeUndefined();
  });

  it("keeps name indexes unique per namespace, and filters tokens by link", () => {
    const h = new Harness().namespaces("team");
    expect(h.run("acl.policy.set", { op: "create", policy: policy("p1", "Reader") })).toBe(true);
    expect(err(h.run("acl.policy.set", { op: "create", policy: policy("p2", "reader") }))).toContain(
      "already exists",
    );
    expect(h.run("acl.policy.set", { op: "create", policy: policy("p3", "reader", "team") })).toBe(true);
    expect(
      h.run("acl.token.set", { op: "create", token: token({ Policies: [{ ID: "p1" }] }), now: h.now }),
    ).toBe(true);
    expect(
      h.run("acl.token.set", {
        op: "create",
        token: token({ AccessorID: "a2", SecretID: "s2" }),
        now: h.now,
      }),
    ).toBe(true);
    const acl = h.store.view().acl();
    expect(acl.policyByName("reader", "default")?.ID).toBe("p1");
    expect(acl.readTokens({ ns: "default", policy: "p1" }).value.map((t) => t.AccessorID)).toEqual(["a1"]);
    expect(acl.readTokens({ ns: "*" }).value).toHaveLength(2);
    // Rename keeps the token's link by ID.
    expect(h.run("acl.policy.set", { op: "update", policy: policy("p1", "renamed") })).toBe(true);
    expect(h.store.view().acl().policyByName("reader", "default")).toBeUndefined();
    expect(h.store.view().acl().token("a1")?.Policies).toEqual([{ ID: "p1" }]);
  });

  it("protects the built-in policy", () => {
    const h = new Harness();
    h.run("acl.init", { policy: gm, anonymous, now: h.now });
    expect(err(h.run("acl.policy.delete", { id: gm.ID }))).toContain("not permitted");
    const changed = h.run("acl.policy.set", { op: "update", policy: { ...gm, Rules: "" } });
    expect(err(changed)).toContain("not permitted");
  });

  it("lists expired tokens for the reaper and deletes them", () => {
    const h = new Harness();
    const at = new Date(h.now + 60_000).toISOString();
    h.run("acl.token.set", { op: "create", token: token({ ExpirationTime: at }), now: h.now });
    expect(h.store.view().acl().expiredTokens(h.now, 10)).toEqual([]);
    const expired = h.store
      .view()
      .acl()
      .expiredTokens(h.now + 61_000, 10);
    expect(expired).toEqual(["a1"]);
    h.run("acl.token.delete", { accessors: expired });
    expect(h.store.view().acl().tokenBySecret("s1")).toBeUndefined();
  });

  it("namespaces: default built in, delete marks, purge removes contents", () => {
    const h = new Harness();
    const acl = () => h.store.view().acl();
    expect(acl().namespace("default")?.Description).toBe("Builtin Default Namespace");
    expect(err(h.run("namespace.delete", { name: "default", now: h.now }))).toBe(
      "Cannot delete the default namespace",
    );
    expect(h.run("namespace.set", { op: "create", namespace: { Name: "team", Description: "" } })).toBe(true);
    h.run("kv.set", { ns: "team", key: "k", value: new Uint8Array([1]), flags: 0n });
    h.run("kv.set", { key: "k", value: new Uint8Array([1]), flags: 0n });
    h.run("acl.token.set", { op: "create", token: token({ Namespace: "team" }), now: h.now });
    expect(h.run("namespace.delete", { name: "team", now: h.now })).toBe(true);
    expect(acl().namespace("team")?.DeletedAt).toBe(new Date(h.now).toISOString());
    expect(h.run("namespace.purge", { name: "team", now: h.now })).toBe(true);
    expect(acl().namespace("team")).toBeUndefined();
    expect(acl().token("a1")).toBeUndefined();
    expect(h.store.view().kvGet("k", "team").value).toBeUndefined();
    expect(h.store.view().kvGet("k").value).toBeDefined();
  });

  it("snapshots carry every ACL table and rebuild the indexes", () => {
    const h = new Harness();
    h.run("acl.init", { policy: gm, anonymous, now: h.now });
    h.run("acl.token.set", { op: "create", token: token({ Policies: [{ ID: gm.ID }] }), now: h.now });
    h.run("namespace.set", { op: "create", namespace: { Name: "team", Description: "x" } });
    const copy = new StateStore();
    copy.restoreSync(h.store.snapshot());
    const acl = copy.view().acl();
    expect(acl.tokenBySecret("s1")?.Hash).toBe(h.store.view().acl().token("a1")?.Hash);
    expect(acl.policyByName("global-management", "default")?.ID).toBe(gm.ID);
    expect(acl.readTokens({ ns: "default", policy: gm.ID }).value).toHaveLength(1);
    expect(acl.namespace("team")?.Description).toBe("x");
    expect(acl.index).toBe(h.store.view().acl().index);
  });
});
