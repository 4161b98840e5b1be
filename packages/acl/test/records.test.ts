import { describe, expect, it } from "vitest";
import {
  AclNotFoundError,
  type AclPolicyRecord,
  type AclRoleRecord,
  type AclSecretLookups,
  type AclTokenRecord,
  type NamespaceAclDefaults,
  recordedLookups,
  recordTokenResolution,
  resolveSecret,
} from "../src/index.js";

const ctx = { now: Date.parse("2026-01-01T00:00:00Z"), datacenter: "dc1", defaultPolicy: "deny" as const };

function lookups(): AclSecretLookups {
  const policies = new Map<string, AclPolicyRecord>([
    ["p-direct", { ID: "p-direct", Rules: `key_prefix "a/" { policy = "write" }`, ModifyIndex: 1 }],
    ["p-role", { ID: "p-role", Rules: `service "web" { policy = "write" }`, ModifyIndex: 2 }],
    ["p-ns", { ID: "p-ns", Rules: `node_prefix "" { policy = "read" }`, ModifyIndex: 3 }],
    ["p-unused", { ID: "p-unused", Rules: `operator = "write"`, ModifyIndex: 4 }],
  ]);
  const roles = new Map<string, AclRoleRecord>([
    [
      "r1",
      { ID: "r1", Policies: [{ ID: "p-role" }], NodeIdentities: [{ NodeName: "n1", Datacenter: "dc1" }] },
    ],
  ]);
  const namespaces = new Map<string, NamespaceAclDefaults>([
    ["default", { PolicyDefaults: [{ ID: "p-ns" }] }],
  ]);
  const tokens = new Map<string, AclTokenRecord>([
    [
      "secret",
      {
        AccessorID: "acc",
        SecretID: "secret",
        Policies: [{ ID: "p-direct" }, { ID: "gone" }],
        Roles: [{ ID: "r1" }],
        ServiceIdentities: [{ ServiceName: "api" }],
      },
    ],
  ]);
  return {
    tokenBySecret: (s) => tokens.get(s),
    policy: (id) => policies.get(id),
    role: (id) => roles.get(id),
    namespaceDefaults: (ns) => namespaces.get(ns),
  };
}

const QUESTIONS = [
  ["key", "a/b", "write"],
  ["key", "b", "read"],
  ["service", "web", "write"],
  ["service", "api", "write"],
  ["service", "db", "read"],
  ["node", "n1", "write"],
  ["node", "n2", "read"],
  ["node", "n2", "write"],
  ["operator", "", "write"],
] as const;

describe("recorded token resolutions", () => {
  it("keep exactly the records read, and resolve from them alone to the same decisions", () => {
    const source = lookups();
    const { resolved, records } = recordTokenResolution("secret", source, ctx);
    expect(records.token.AccessorID).toBe("acc");
    expect(records.policies.map((p) => p.ID).sort()).toEqual(["p-direct", "p-ns", "p-role"]);
    expect(records.roles.map((r) => r.ID)).toEqual(["r1"]);
    expect(Object.keys(records.namespaces)).toEqual(["default"]);
    // A round trip through JSON stands for the tunnel: the records are plain data.
    const copy = recordedLookups(JSON.parse(JSON.stringify(records)));
    const again = resolveSecret("secret", copy, ctx).authorizer;
    for (const [type, name, access] of QUESTIONS) {
      expect(again.authorize("default", type, name, access), `${type} ${name} ${access}`).toBe(
        resolved.authorizer.authorize("default", type, name, access),
      );
    }
    expect(again.authorize("default", "operator", "", "write")).toBe("deny");
    expect(again.authorize("default", "service", "api", "write")).toBe("allow");
    expect(() => resolveSecret("other", copy, ctx)).toThrow(AclNotFoundError);
  });

  it("refuse unknown and expired tokens as resolution does", () => {
    expect(() => recordTokenResolution("nope", lookups(), ctx)).toThrow(AclNotFoundError);
    const expired: AclSecretLookups = {
      ...lookups(),
      tokenBySecret: (s) => ({ AccessorID: "a", SecretID: s, ExpirationTime: "2020-01-01T00:00:00Z" }),
    };
    expect(() => recordTokenResolution("x", expired, ctx)).toThrow(/ACL not found/);
  });
});
