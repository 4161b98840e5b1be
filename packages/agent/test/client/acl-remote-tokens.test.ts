// RemoteTokens: a client agent's token answers, cached for the TTL, and the down policies when no server
// answers, with a scripted resolver and clock.
import type { AclTokenRecords } from "@cairn/acl";
import { describe, expect, it } from "vitest";
import { type DownPolicy, RemoteTokens } from "../../src/client/acl/remote-tokens.js";

const records = (secret: string): AclTokenRecords => ({
  token: { AccessorID: `acc-${secret}`, SecretID: secret },
  policies: [],
  roles: [],
  namespaces: {},
});

function setup(downPolicy: DownPolicy) {
  let now = 0;
  let up = true;
  const asked: string[] = [];
  let release: (() => void) | undefined;
  const tokens = new RemoteTokens({
    resolve: async (secret) => {
      asked.push(secret);
      if (release) await new Promise<void>((r) => (release = r));
      if (!up) throw new Error("no server");
      return secret === "unknown" ? undefined : records(secret);
    },
    ttlMs: 1_000,
    downPolicy,
    clock: () => now,
  });
  return {
    tokens,
    asked,
    advance: (ms: number) => (now += ms),
    down: () => (up = false),
    hold: () => (release = () => {}),
    letGo: () => release?.(),
  };
}

describe("RemoteTokens", () => {
  it("asks a server once per TTL, and shares one question among callers", async () => {
    const t = setup("extend-cache");
    await Promise.all([t.tokens.prepare("a"), t.tokens.prepare("a")]);
    await t.tokens.prepare("a");
    expect(t.tokens.state("a")).toEqual({ kind: "found", records: records("a") });
    expect(t.asked).toEqual(["a"]);
    t.advance(1_000);
    await t.tokens.prepare("a");
    expect(t.asked).toEqual(["a", "a"]);
    expect(t.tokens.state("never")).toBeUndefined();
  });

  it("asks again each time for an unknown secret, as Consul does not cache one", async () => {
    const t = setup("extend-cache");
    await t.tokens.prepare("unknown");
    expect(t.tokens.state("unknown")).toEqual({ kind: "not-found" });
    await t.tokens.prepare("unknown");
    expect(t.asked).toEqual(["unknown", "unknown"]);
  });

  it("extend-cache: keeps using a stale answer while no server answers, else the default policy", async () => {
    const t = setup("extend-cache");
    await t.tokens.prepare("a");
    t.down();
    t.advance(5_000);
    await t.tokens.prepare("a");
    await t.tokens.prepare("b");
    expect(t.tokens.state("a")?.kind).toBe("found");
    expect(t.tokens.state("b")).toEqual({ kind: "unresolved", decision: "default" });
  });

  it("allow and deny: decide every unresolved token alike, cached or not", async () => {
    for (const policy of ["allow", "deny"] as const) {
      const t = setup(policy);
      await t.tokens.prepare("a");
      t.down();
      t.advance(5_000);
      await t.tokens.prepare("a");
      expect(t.tokens.state("a")).toEqual({ kind: "unresolved", decision: policy });
    }
  });

  it("async-cache: answers from a stale entry at once and refreshes it in the background", async () => {
    const t = setup("async-cache");
    await t.tokens.prepare("a");
    t.advance(5_000);
    t.hold();
    await t.tokens.prepare("a");
    expect(t.asked).toEqual(["a", "a"]);
    expect(t.tokens.state("a")?.kind).toBe("found");
    t.letGo();
  });
});
