import { describe, expect, it } from "vitest";
import { loadAgentConfig } from "../../src/index.js";
import { isNewcomer, primaryMismatch, type ServerInfo } from "../../src/server/join/protocol.js";

const env = { HOSTNAME: "test-host" };
const load = (...hcl: string[]) => loadAgentConfig(["-dev", ...hcl.flatMap((h) => ["-hcl", h])], env);

describe("federation settings", () => {
  it("primary_datacenter defaults to the datacenter; acl_datacenter is its older name", () => {
    expect(load('datacenter = "east"').config.primaryDatacenter).toBe("east");
    const legacy = load('datacenter = "west"', 'acl_datacenter = "east"');
    expect(legacy.config.primaryDatacenter).toBe("east");
    expect(legacy.warnings.join("\n")).toMatch(/acl_datacenter/);
  });

  it("token replication and the replication cycle, with spec 1's defaults", () => {
    const plain = load().config.acl;
    expect(plain.enableTokenReplication).toBe(false);
    expect(plain.replication).toEqual({ intervalMs: 30_000, initialDelayMs: 60_000, applyRate: 100 });
    const set = load(
      'acl { enable_token_replication = true\n replication_interval = "2s"\n replication_initial_delay = "500ms"\n replication_apply_rate = 1000 }',
    ).config.acl;
    expect(set.enableTokenReplication).toBe(true);
    expect(set.replication).toEqual({ intervalMs: 2_000, initialDelayMs: 500, applyRate: 1000 });
    const old = load("enable_acl_replication = true");
    expect(old.config.acl.enableTokenReplication).toBe(true);
    expect(old.warnings.join("\n")).toMatch(/enable_acl_replication/);
  });

  it("refuses a bad replication setting naming the key", () => {
    expect(() => load("acl { replication_apply_rate = 0 }")).toThrow(/replication_apply_rate/);
    expect(() => load('acl { replication_interval = "soon" }')).toThrow(/replication_interval/);
  });
});

describe("primary_datacenter agreement between servers", () => {
  const info = (over: Partial<ServerInfo>): ServerInfo => ({
    id: "a",
    name: "s1",
    datacenter: "dc2",
    primaryDatacenter: "dc1",
    rpcAddress: "127.0.0.1:8300",
    joinAddress: "127.0.0.1:8301",
    hasState: true,
    voters: {},
    leader: null,
    ...over,
  });

  it("names the key and both values when servers of one datacenter disagree", () => {
    const reason = primaryMismatch(info({ primaryDatacenter: "dc2" }), info({ id: "b", name: "s2" }));
    expect(reason).toMatch(
      /^primary_datacenter: this server has "dc2" but server "s2" of datacenter "dc2" has "dc1"/,
    );
    expect(primaryMismatch(info({}), info({ id: "b" }))).toBeUndefined();
    // Another datacenter, or a server that does not say: nothing to compare.
    expect(primaryMismatch(info({ primaryDatacenter: "dc2" }), info({ datacenter: "dc3" }))).toBeUndefined();
    expect(primaryMismatch(info({}), info({ primaryDatacenter: undefined }))).toBeUndefined();
  });

  it("only a server outside a formed cluster gives up", () => {
    expect(isNewcomer(info({}))).toBe(true);
    expect(isNewcomer(info({ leader: "x" }))).toBe(false);
    expect(isNewcomer(info({ voters: { a: "127.0.0.1:8300" } }))).toBe(false);
  });
});
