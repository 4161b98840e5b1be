// ClientAclEnforcer: decisions from a server's records of a token, as the routes ask them synchronously.
import type { AclTokenRecords } from "@cairn/acl";
import { HttpError } from "@cairn/api";
import { describe, expect, it } from "vitest";
import { ClientAclEnforcer } from "../../src/client/acl/client-enforcer.js";
import { type DownPolicy, RemoteTokens } from "../../src/client/acl/remote-tokens.js";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const RECORDS: Record<string, AclTokenRecords> = {
  reader: {
    token: { AccessorID: "a1", SecretID: "reader", Namespace: "team", Policies: [{ ID: "p1" }] },
    policies: [{ ID: "p1", Rules: `agent_prefix "" { policy = "read" }`, ModifyIndex: 1 }],
    roles: [],
    namespaces: {},
  },
  brief: {
    token: { AccessorID: "a2", SecretID: "brief", ExpirationTime: new Date(T0 + 60_000).toISOString() },
    policies: [],
    roles: [],
    namespaces: {},
  },
  anonymous: {
    token: { AccessorID: "anon", SecretID: "anonymous" },
    policies: [],
    roles: [],
    namespaces: {},
  },
};

function enforcer(o: { up?: boolean; downPolicy?: DownPolicy; defaultToken?: string } = {}) {
  let now = T0;
  const tokens = new RemoteTokens({
    resolve: async (secret) => {
      if (o.up === false) throw new Error("no server");
      return RECORDS[secret];
    },
    ttlMs: 30_000,
    downPolicy: o.downPolicy ?? "extend-cache",
    clock: () => now,
  });
  const acl = new ClientAclEnforcer({
    tokens,
    datacenter: "dc1",
    defaultPolicy: "allow",
    defaultToken: () => o.defaultToken ?? "",
    recoveryToken: () => "recovery",
    nodeName: "c1",
    clock: () => now,
  });
  return { acl, advance: (ms: number) => (now += ms) };
}

const status = (f: () => unknown) => {
  try {
    f();
    return 200;
  } catch (err) {
    return err instanceof HttpError ? `${err.status} ${err.message}` : String(err);
  }
};

describe("ClientAclEnforcer", () => {
  it("authorizes with the token's rules over the client's default policy, and names its namespace", async () => {
    const { acl } = enforcer();
    await acl.prepare("reader");
    expect(acl.authorize("reader", "default", "agent", "c1", "read")).toBe("allow");
    expect(acl.authorize("reader", "default", "agent", "c1", "write")).toBe("allow"); // default allow
    expect(acl.authorize("reader", "default", "acl", "", "write")).toBe("deny");
    expect(acl.tokenNamespace("reader")).toBe("team");
  });

  it("acts with the default token, else anonymous, for requests without one", async () => {
    const withDefault = enforcer({ defaultToken: "reader" }).acl;
    await withDefault.prepare("");
    expect(withDefault.tokenNamespace("")).toBe("team");
    const anonymous = enforcer().acl;
    await anonymous.prepare("");
    expect(anonymous.forToken("").isManagement()).toBe(false);
    expect(anonymous.authorize("", "default", "key", "k", "read")).toBe("allow");
  });

  it("answers 403 ACL not found for an unknown token and for one that expired since it was resolved", async () => {
    const { acl, advance } = enforcer();
    await acl.prepare("nope");
    expect(status(() => acl.forToken("nope"))).toBe("403 ACL not found");
    await acl.prepare("brief");
    expect(status(() => acl.forToken("brief"))).toBe(200);
    advance(61_000);
    expect(status(() => acl.forToken("brief"))).toBe("403 ACL not found");
  });

  it("denies a token never prepared, and follows the down policy when no server answers", async () => {
    const { acl } = enforcer();
    expect(acl.authorize("reader", "default", "agent", "c1", "read")).toBe("deny");
    const allow = enforcer({ up: false, downPolicy: "allow" }).acl;
    await allow.prepare("whatever");
    expect(allow.authorize("whatever", "default", "agent", "c1", "write")).toBe("allow");
    const deny = enforcer({ up: false, downPolicy: "deny" }).acl;
    await deny.prepare("whatever");
    expect(deny.authorize("whatever", "default", "agent", "c1", "read")).toBe("deny");
    // extend-cache with nothing cached: the agent's default policy (allow here).
    const extend = enforcer({ up: false }).acl;
    await extend.prepare("whatever");
    expect(extend.authorize("whatever", "default", "agent", "c1", "write")).toBe("allow");
    expect(extend.authorize("whatever", "default", "acl", "", "read")).toBe("deny");
  });

  it("grants the agent recovery token agent:write on this agent and node:read, without a server", async () => {
    const { acl } = enforcer({ up: false });
    await acl.prepare("recovery");
    expect(acl.authorize("recovery", "default", "agent", "c1", "write")).toBe("allow");
    expect(acl.authorize("recovery", "default", "agent", "c2", "read")).toBe("deny");
    expect(acl.authorize("recovery", "default", "node", "any", "read")).toBe("allow");
    expect(acl.authorize("recovery", "default", "node", "any", "write")).toBe("deny");
    expect(acl.authorize("recovery", "default", "service", "web", "read")).toBe("deny");
  });
});
