import { describe, expect, it } from "vitest";
import {
  AclIdentityError,
  AclNotFoundError,
  type AclPolicyRecord,
  type AclRoleRecord,
  type AclSecretLookups,
  type AclTokenRecord,
  GLOBAL_MANAGEMENT_POLICY_ID,
  GLOBAL_MANAGEMENT_RULES,
  type NamespaceAclDefaults,
  RulesCache,
  resolveSecret,
  resolveToken,
  validateNodeIdentity,
  validateServiceIdentity,
} from "../src/index.js";

const NOW = Date.parse("2026-01-01T00:00:00Z");

class Store implements AclSecretLookups {
  readonly policies = new Map<string, AclPolicyRecord>();
  readonly roles = new Map<string, AclRoleRecord>();
  readonly tokens = new Map<string, AclTokenRecord>();
  readonly namespaces = new Map<string, NamespaceAclDefaults>();
  policyReads = 0;

  addPolicy(ID: string, Rules: string, extra: Partial<AclPolicyRecord> = {}): this {
    this.policies.set(ID, { ID, Rules, ModifyIndex: 1, ...extra });
    return this;
  }
  policy(id: string) {
    this.policyReads++;
    return this.policies.get(id);
  }
  role(id: string) {
    return this.roles.get(id);
  }
  namespaceDefaults(ns: string) {
    return this.namespaces.get(ns);
  }
  tokenBySecret(secret: string) {
    return this.tokens.get(secret);
  }
}

function token(extra: Partial<AclTokenRecord>): AclTokenRecord {
  return { AccessorID: "acc", SecretID: "sec", ...extra };
}

const ctx = { now: NOW, datacenter: "dc1", defaultPolicy: "deny" as const };

describe("resolveToken", () => {
  it("combines linked policies and skips links to missing ones", () => {
    const store = new Store()
      .addPolicy("p1", `key_prefix "a/" { policy = "write" }`)
      .addPolicy("p2", `service "web" { policy = "read" }`);
    const { authorizer, expiresAt } = resolveToken(
      token({ Policies: [{ ID: "p1" }, { ID: "gone" }, { ID: "p2" }] }),
      store,
      ctx,
    );
    expect(expiresAt).toBeUndefined();
    expect(authorizer.authorize("default", "key", "a/x", "write")).toBe("allow");
    expect(authorizer.authorize("default", "service", "web", "read")).toBe("allow");
    expect(authorizer.authorize("default", "service", "web", "write")).toBe("deny");
  });

  it("follows roles to their policies and service identities, each once", () => {
    const store = new Store().addPolicy("p1", `key "k" { policy = "write" }`);
    store.roles.set("r1", {
      ID: "r1",
      Policies: [{ ID: "p1" }],
      ServiceIdentities: [{ ServiceName: "api" }],
    });
    const { authorizer } = resolveToken(
      token({ Roles: [{ ID: "r1" }, { ID: "r1" }, { ID: "missing-role" }], Policies: [{ ID: "p1" }] }),
      store,
      ctx,
    );
    expect(authorizer.authorize("default", "key", "k", "write")).toBe("allow");
    expect(authorizer.authorize("default", "service", "api", "write")).toBe("allow");
    expect(store.policyReads).toBe(1);
  });

  it("skips policies restricted to other datacenters", () => {
    const store = new Store()
      .addPolicy("here", `key "a" { policy = "write" }`, { Datacenters: ["dc1"] })
      .addPolicy("there", `key "b" { policy = "write" }`, { Datacenters: ["dc2"] });
    const { authorizer } = resolveToken(token({ Policies: [{ ID: "here" }, { ID: "there" }] }), store, ctx);
    expect(authorizer.authorize("default", "key", "a", "write")).toBe("allow");
    expect(authorizer.authorize("default", "key", "b", "write")).toBe("deny");
  });

  it("refuses an expired token and reports when a live one expires", () => {
    const store = new Store();
    expect(() => resolveToken(token({ ExpirationTime: "2025-12-31T23:59:59Z" }), store, ctx)).toThrow(
      AclNotFoundError,
    );
    expect(() => resolveToken(token({ ExpirationTime: "2026-01-01T00:00:00Z" }), store, ctx)).toThrow(
      "ACL not found",
    );
    expect(() => resolveToken(token({ ExpirationTime: "not a time" }), store, ctx)).toThrow(AclNotFoundError);
    const live = resolveToken(token({ ExpirationTime: "2026-01-01T00:10:00Z" }), store, ctx);
    expect(live.expiresAt).toBe(NOW + 600_000);
    expect(resolveToken(token({ ExpirationTime: "" }), store, ctx).expiresAt).toBeUndefined();
    expect(
      resolveToken(token({ ExpirationTime: "0001-01-01T00:00:00Z" }), store, ctx).expiresAt,
    ).toBeUndefined();
  });

  it("resolves secrets, refusing unknown ones", () => {
    const store = new Store().addPolicy(GLOBAL_MANAGEMENT_POLICY_ID, GLOBAL_MANAGEMENT_RULES);
    store.tokens.set("root", token({ SecretID: "root", Policies: [{ ID: GLOBAL_MANAGEMENT_POLICY_ID }] }));
    expect(resolveSecret("root", store, ctx).authorizer.isManagement()).toBe(true);
    const err = (() => {
      try {
        resolveSecret("nope", store, ctx);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(AclNotFoundError);
    expect((err as AclNotFoundError).reason).toBe("unknown");
  });

  it("applies the namespace's default policies and roles below the token's own rules", () => {
    // Namespace defaults link policies and roles of the default namespace (as Consul requires); they grant
    // access in the token's namespace.
    const store = new Store()
      .addPolicy("direct", `key_prefix "app/" { policy = "read" }`, { Namespace: "team" })
      .addPolicy("def", `key_prefix "" { policy = "write" }`)
      .addPolicy("defrole", `session_prefix "" { policy = "write" }`);
    store.roles.set("r", { ID: "r", Policies: [{ ID: "defrole" }] });
    store.namespaces.set("team", { PolicyDefaults: [{ ID: "def" }], RoleDefaults: [{ ID: "r" }] });
    const { authorizer } = resolveToken(
      token({ Namespace: "team", Policies: [{ ID: "direct" }] }),
      store,
      ctx,
    );
    expect(authorizer.authorize("team", "key", "app/x", "write")).toBe("deny");
    expect(authorizer.authorize("team", "key", "app/x", "read")).toBe("allow");
    expect(authorizer.authorize("team", "key", "other", "write")).toBe("allow");
    expect(authorizer.authorize("team", "session", "n1", "write")).toBe("allow");
    expect(authorizer.authorize("default", "key", "other", "read")).toBe("deny");
  });

  it("applies a linked policy's top-level rules in the token's namespace; namespace blocks stay absolute", () => {
    const store = new Store().addPolicy(
      "p",
      `key_prefix "" { policy = "read" }\nnamespace "ops" { key_prefix "" { policy = "write" } }`,
    );
    const team = resolveToken(token({ Namespace: "team", Policies: [{ ID: "p" }] }), store, ctx).authorizer;
    expect(team.authorize("team", "key", "k", "read")).toBe("allow");
    expect(team.authorize("default", "key", "k", "read")).toBe("deny");
    expect(team.authorize("ops", "key", "k", "write")).toBe("allow");
    const root = resolveToken(token({ Policies: [{ ID: "p" }] }), store, ctx).authorizer;
    expect(root.authorize("default", "key", "k", "read")).toBe("allow");
    expect(root.authorize("team", "key", "k", "read")).toBe("deny");
  });

  it("skips a stored policy whose rules no longer parse", () => {
    const store = new Store()
      .addPolicy("bad", `key "a" { policy = "nope" }`)
      .addPolicy("ok", `key "b" { policy = "read" }`);
    const { authorizer } = resolveToken(token({ Policies: [{ ID: "bad" }, { ID: "ok" }] }), store, ctx);
    expect(authorizer.authorize("default", "key", "b", "read")).toBe("allow");
    expect(authorizer.authorize("default", "key", "a", "read")).toBe("deny");
  });

  it("parses each policy version once and shares compiled sets between tokens", () => {
    const store = new Store().addPolicy("p", `key "a" { policy = "write" }`);
    const rules = new RulesCache();
    const one = resolveToken(token({ Policies: [{ ID: "p" }] }), store, { ...ctx, rules });
    const two = resolveToken(token({ AccessorID: "b", Policies: [{ ID: "p" }] }), store, { ...ctx, rules });
    expect(one.authorizer.authorize("default", "key", "a", "write")).toBe("allow");
    expect(two.authorizer.authorize("default", "key", "a", "write")).toBe("allow");
    store.addPolicy("p", `key "a" { policy = "read" }`, { ModifyIndex: 2 });
    const three = resolveToken(token({ Policies: [{ ID: "p" }] }), store, { ...ctx, rules });
    expect(three.authorizer.authorize("default", "key", "a", "write")).toBe("deny");
  });
});

describe("service identities", () => {
  const store = new Store();

  it("synthesize Consul's policy: the service and its sidecar write, all services and nodes read", () => {
    const { authorizer } = resolveToken(token({ ServiceIdentities: [{ ServiceName: "web" }] }), store, ctx);
    const rows: [Parameters<typeof authorizer.authorize>[1], string, "read" | "write", string][] = [
      ["service", "web", "write", "allow"],
      ["service", "web-sidecar-proxy", "write", "allow"],
      ["service", "web-other", "write", "deny"],
      ["service", "db", "read", "allow"],
      ["service", "db", "write", "deny"],
      ["node", "n1", "read", "allow"],
      ["node", "n1", "write", "deny"],
      ["intentions", "web", "read", "allow"],
      ["key", "k", "read", "deny"],
    ];
    for (const [resource, name, access, expected] of rows) {
      expect(authorizer.authorize("default", resource, name, access)).toBe(expected);
    }
  });

  it("apply only in their datacenters when Datacenters is set", () => {
    const si = (Datacenters: string[] | null) =>
      resolveToken(
        token({ ServiceIdentities: [{ ServiceName: "web", Datacenters }] }),
        store,
        ctx,
      ).authorizer.authorize("default", "service", "web", "write");
    expect(si(null)).toBe("allow");
    expect(si([])).toBe("allow");
    expect(si(["dc1", "dc2"])).toBe("allow");
    expect(si(["dc2"])).toBe("deny");
  });

  it("node identities grant the node write in their datacenter only", () => {
    const here = resolveToken(
      token({ NodeIdentities: [{ NodeName: "n1", Datacenter: "dc1" }] }),
      store,
      ctx,
    ).authorizer;
    expect(here.authorize("default", "node", "n1", "write")).toBe("allow");
    expect(here.authorize("default", "service", "x", "read")).toBe("allow");
    const there = resolveToken(
      token({ NodeIdentities: [{ NodeName: "n1", Datacenter: "dc2" }] }),
      store,
      ctx,
    ).authorizer;
    expect(there.authorize("default", "node", "n1", "write")).toBe("deny");
  });

  it("live in the token's namespace", () => {
    const { authorizer } = resolveToken(
      token({ Namespace: "team", ServiceIdentities: [{ ServiceName: "web" }] }),
      store,
      ctx,
    );
    expect(authorizer.authorize("team", "service", "web", "write")).toBe("allow");
    expect(authorizer.authorize("default", "service", "web", "write")).toBe("deny");
  });

  it.each([
    ["web", true],
    ["a", true],
    ["web-1_x", true],
    ["9lives", true],
    ["", false],
    ["Web", false],
    ["-web", false],
    ["web-", false],
    ["_web", false],
    ["web.api", false],
    ["web api", false],
    ["a".repeat(256), true],
    ["a".repeat(257), false],
  ])("ServiceName %j valid=%s", (name, valid) => {
    const run = () => validateServiceIdentity({ ServiceName: name });
    if (valid) expect(run).not.toThrow();
    else expect(run).toThrow(AclIdentityError);
  });

  it("names the field in the error", () => {
    expect(() => validateServiceIdentity({ ServiceName: "Bad" })).toThrow(
      /^ServiceIdentity\.ServiceName "Bad" must/,
    );
    expect(() => validateNodeIdentity({ NodeName: "n", Datacenter: "" })).toThrow(
      "NodeIdentity.Datacenter is required",
    );
    expect(() => validateNodeIdentity({ NodeName: "", Datacenter: "dc1" })).toThrow(
      "NodeIdentity.NodeName is required",
    );
  });
});
