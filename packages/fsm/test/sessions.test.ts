import { describe, expect, it } from "vitest";
import { isApplyError } from "../src/index.js";
import { Harness, text } from "./helpers.js";

const S1 = "11111111-1111-1111-1111-111111111111";
const S2 = "22222222-2222-2222-2222-222222222222";

function withNode(): Harness {
  const h = new Harness();
  h.registerNode("n1", { Check: { CheckID: "serfHealth", Name: "Serf", Status: "passing" } });
  return h;
}

describe("session create", () => {
  it("creates with defaults and lists by node", () => {
    const h = withNode();
    expect(h.createSession({ ID: S1, Checks: ["serfHealth"] })).toEqual({ ID: S1 });
    const s = h.store.view().sessionGet(S1).value;
    expect(s).toMatchObject({ ID: S1, Node: "n1", Behavior: "release", LockDelay: 15e9, TTL: "", Name: "" });
    expect(
      h.store
        .view()
        .sessionsForNode("n1")
        .value.map((x) => x.ID),
    ).toEqual([S1]);
    expect(h.store.view().sessionList().value).toHaveLength(1);
    expect(h.store.view().sessionList().index).toBe(2);
  });

  it("refuses an unregistered node", () => {
    const h = new Harness();
    const r = h.createSession({ ID: S1, Node: "ghost" });
    expect(r).toEqual({ error: "Missing node registration", kind: "invalid" });
    expect(h.store.view().sessionList().value).toEqual([]);
  });

  it("refuses a missing or critical check", () => {
    const h = withNode();
    expect(h.createSession({ ID: S1, Checks: ["nope"] })).toMatchObject({
      error: "Missing check 'nope' registration",
    });
    h.registerNode("n1", { Check: { CheckID: "bad", Status: "critical" } });
    expect(h.createSession({ ID: S1, Checks: ["bad"] })).toMatchObject({
      error: "Check 'bad' is in critical state",
    });
  });

  it("checks TTL bounds 10s..86400s", () => {
    const h = withNode();
    expect(isApplyError(h.createSession({ ID: S1, TTL: "9s" }))).toBe(true);
    expect(isApplyError(h.createSession({ ID: S1, TTL: "86401s" }))).toBe(true);
    expect(isApplyError(h.createSession({ ID: S1, TTL: "ten" }))).toBe(true);
    expect(h.createSession({ ID: S1, TTL: "10s" })).toEqual({ ID: S1 });
    expect(h.createSession({ ID: S2, TTL: "24h" })).toEqual({ ID: S2 });
  });

  it("honours a lower configured TTL minimum stamped into the command", () => {
    const h = withNode();
    expect(
      h.run("session.create", { session: { ID: S1, Node: "n1", TTL: "2s" }, now: h.now, ttlMinNs: 1e9 }),
    ).toEqual({
      ID: S1,
    });
    expect(
      isApplyError(h.run("session.create", { session: { ID: S2, Node: "n1", TTL: "2s" }, now: h.now })),
    ).toBe(true);
  });

  it("refuses a duplicate ID", () => {
    const h = withNode();
    h.createSession({ ID: S1 });
    expect(isApplyError(h.createSession({ ID: S1 }))).toBe(true);
  });

  it("destroy is idempotent", () => {
    const h = withNode();
    h.createSession({ ID: S1 });
    expect(h.destroySession(S1)).toBe(true);
    expect(h.destroySession(S1)).toBe(true);
    expect(h.store.view().sessionGet(S1).value).toBeUndefined();
  });
});

describe("locks", () => {
  it("acquire, re-acquire, release, as the lock table says", () => {
    const h = withNode();
    h.createSession({ ID: S1 });
    h.createSession({ ID: S2 });
    expect(h.lock("l", S1, "a")).toBe(true);
    let e = h.store.view().kvGet("l").value;
    expect(e).toMatchObject({ LockIndex: 1, Session: S1 });
    expect(h.lock("l", S1, "b")).toBe(true); // same session: no increment, contents updated
    e = h.store.view().kvGet("l").value;
    expect(e).toMatchObject({ LockIndex: 1, Session: S1 });
    expect(text(e?.Value)).toBe("b");
    expect(h.lock("l", S2)).toBe(false); // held by another
    expect(h.unlock("l", S2)).toBe(false);
    h.set("l", "plain"); // a plain write keeps the lock
    expect(h.store.view().kvGet("l").value).toMatchObject({ Session: S1, LockIndex: 1 });
    expect(h.unlock("l", S1, "c")).toBe(true);
    e = h.store.view().kvGet("l").value;
    expect(e?.Session).toBeUndefined();
    expect(e?.LockIndex).toBe(1);
    expect(h.lock("l", S2)).toBe(true);
    expect(h.store.view().kvGet("l").value).toMatchObject({ LockIndex: 2, Session: S2 });
  });

  it("acquire with an unknown session is an error", () => {
    const h = withNode();
    const refused = h.lock("l", S1);
    expect(isApplyError(refused)).toBe(true);
    // Its own kind: the API answers it with Consul's 500, which clients (Patroni) recognise.
    expect(refused).toEqual({ error: `invalid session "${S1}"`, kind: "invalid-session" });
    expect(h.store.view().kvGet("l").value).toBeUndefined();
  });

  it("release on a missing key is false", () => {
    const h = withNode();
    h.createSession({ ID: S1 });
    expect(h.unlock("nope", S1)).toBe(false);
  });

  it("invalidation releases held keys and starts the lock-delay", () => {
    const h = withNode();
    h.createSession({ ID: S1, LockDelay: 5e9 });
    h.createSession({ ID: S2 });
    h.lock("l", S1, "v");
    h.destroySession(S1);
    expect(h.store.view().kvGet("l").value).toMatchObject({ LockIndex: 1 });
    expect(h.store.view().kvGet("l").value?.Session).toBeUndefined();
    h.now += 4_999;
    expect(h.lock("l", S2)).toBe(false);
    h.now += 1;
    expect(h.lock("l", S2)).toBe(true);
  });

  it("Behavior delete removes held keys", () => {
    const h = withNode();
    h.createSession({ ID: S1, Behavior: "delete" });
    h.lock("d/1", S1);
    h.lock("d/2", S1);
    h.set("d/3", "kept");
    h.destroySession(S1);
    expect(h.store.view().kvKeys("d/").value).toEqual(["d/3"]);
  });

  it("a check going critical invalidates the sessions naming it", () => {
    const h = withNode();
    h.createSession({ ID: S1, Checks: ["serfHealth"] });
    h.lock("l", S1);
    h.registerNode("n1", { Check: { CheckID: "serfHealth", Name: "Serf", Status: "warning" } });
    expect(h.store.view().sessionGet(S1).value).toBeDefined();
    h.registerNode("n1", { Check: { CheckID: "serfHealth", Name: "Serf", Status: "critical" } });
    expect(h.store.view().sessionGet(S1).value).toBeUndefined();
    expect(h.store.view().kvGet("l").value?.Session).toBeUndefined();
  });

  it("deregistering the check or the node invalidates sessions", () => {
    const h = withNode();
    h.createSession({ ID: S1, Checks: ["serfHealth"] });
    h.createSession({ ID: S2, Checks: [] });
    h.run("catalog.deregister", { node: "n1", checkID: "serfHealth", now: h.now });
    expect(h.store.view().sessionGet(S1).value).toBeUndefined();
    expect(h.store.view().sessionGet(S2).value).toBeDefined();
    h.run("catalog.deregister", { node: "n1", now: h.now });
    expect(h.store.view().sessionList().value).toEqual([]);
  });
});
