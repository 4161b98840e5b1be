import { describe, expect, it } from "vitest";
import type { WaitOutcome } from "../src/index.js";
import { Harness } from "./helpers.js";

/** Resolves to the outcome if the wait has settled by the next macrotask, else "pending". */
async function settled(p: Promise<WaitOutcome>): Promise<WaitOutcome | "pending"> {
  return Promise.race([p, new Promise<"pending">((r) => setImmediate(() => r("pending")))]);
}

describe("watches", () => {
  it("a key change wakes watchers of the key and of its prefixes, not of others", async () => {
    const h = new Harness();
    h.set("a/b", "0");
    const v = h.store.view();
    const key = h.store.watches.wait(v.kvGet("a/b").watch);
    const sibling = h.store.watches.wait(v.kvGet("a/bc").watch);
    const prefix = h.store.watches.wait(v.kvList("a/").watch);
    const shortPrefix = h.store.watches.wait(v.kvKeys("a").watch);
    const root = h.store.watches.wait(v.kvList("").watch);
    const other = h.store.watches.wait(v.kvList("c/").watch);
    const longer = h.store.watches.wait(v.kvList("a/b/").watch);
    const table = h.store.watches.wait(v.nodes().watch);
    expect(h.store.watches.waiting).toBe(8);
    h.set("a/b", "1");
    expect(await settled(key)).toBe("changed");
    expect(await settled(prefix)).toBe("changed");
    expect(await settled(shortPrefix)).toBe("changed");
    expect(await settled(root)).toBe("changed");
    expect(await settled(sibling)).toBe("pending");
    expect(await settled(other)).toBe("pending");
    expect(await settled(longer)).toBe("pending");
    expect(await settled(table)).toBe("pending");
    expect(h.store.watches.waiting).toBe(4);
  });

  it("deletes and lock releases wake too; a refused write does not", async () => {
    const h = new Harness();
    h.set("k", "0");
    let w = h.store.watches.wait(h.store.view().kvGet("k").watch);
    h.run("kv.cas", { key: "k", value: new Uint8Array(), flags: 0n, index: 99 });
    expect(await settled(w)).toBe("pending");
    h.del("k");
    expect(await settled(w)).toBe("changed");
    w = h.store.watches.wait(h.store.view().kvGet("k").watch);
    h.txn([{ KV: { Verb: "set", Key: "k", Value: new Uint8Array() } }, { KV: { Verb: "get", Key: "nope" } }]);
    expect(await settled(w)).toBe("pending");
  });

  it("catalog reads wake on their table, service or node only", async () => {
    const h = new Harness();
    h.registerNode("n1", { Service: { ID: "w1", Service: "web" } });
    h.registerNode("n2", { Service: { ID: "d1", Service: "db" } });
    const v = h.store.view();
    const web = h.store.watches.wait(v.serviceInstances("web").watch);
    const db = h.store.watches.wait(v.serviceInstances("db").watch);
    const n2 = h.store.watches.wait(v.node("n2").watch);
    h.registerNode("n1", { Check: { CheckID: "w1c", ServiceID: "w1", Status: "passing" } });
    expect(await settled(web)).toBe("changed");
    expect(await settled(db)).toBe("pending");
    expect(await settled(n2)).toBe("pending");
    h.registerNode("n2", { Address: "9.9.9.9" });
    expect(await settled(db)).toBe("changed");
    expect(await settled(n2)).toBe("changed");
  });

  it("times out through the abort signal and leaves nothing registered", async () => {
    const h = new Harness();
    const out = await h.store.watches.wait(h.store.view().kvGet("x").watch, AbortSignal.timeout(20));
    expect(out).toBe("timeout");
    expect(h.store.watches.waiting).toBe(0);
    const aborted = new AbortController();
    aborted.abort();
    expect(await h.store.watches.wait(h.store.view().kvGet("x").watch, aborted.signal)).toBe("timeout");
  });

  it("a watch set from an older view resolves at once", async () => {
    const h = new Harness();
    const stale = h.store.view().kvGet("x").watch;
    h.set("y", "1");
    expect(await settled(h.store.watches.wait(stale))).toBe("changed");
  });

  it("restore wakes everyone", async () => {
    const h = new Harness();
    h.set("a", "1");
    const w = h.store.watches.wait(h.store.view().kvGet("zzz").watch);
    h.store.restoreSync(h.store.snapshot());
    expect(await settled(w)).toBe("changed");
  });

  it("10,000 waiters: an apply costs the woken ones, not all", async () => {
    const h = new Harness();
    h.set("seed", "0");
    const v = h.store.view();
    const waits = Array.from({ length: 10_000 }, (_, i) => h.store.watches.wait(v.kvGet(`svc/${i}`).watch));
    const t0 = performance.now();
    for (let i = 0; i < 1_000; i++) h.set(`other/${i}`, "x");
    const unrelated = performance.now() - t0;
    expect(h.store.watches.waiting).toBe(10_000);
    h.set("svc/42", "x");
    expect(await settled(waits[42]!)).toBe("changed");
    expect(h.store.watches.waiting).toBe(9_999);
    expect(unrelated).toBeLessThan(1_000);
    // Release the rest so nothing lingers.
    for (let i = 0; i < 10_000; i++) if (i !== 42) h.set(`svc/${i}`, "y");
    expect(h.store.watches.waiting).toBe(0);
  });
});

describe("health watches", () => {
  it("a node-level check change wakes the service instances on that node", async () => {
    const h = new Harness();
    h.registerNode("n1", { Service: { ID: "w1", Service: "web" } });
    const w = h.store.watches.wait(h.store.view().serviceHealth("web").watch);
    const before = h.store.view().serviceHealth("web").index;
    h.registerNode("n1", { Check: { CheckID: "serfHealth", Status: "critical" } });
    expect(await settled(w)).toBe("changed");
    const after = h.store.view().serviceHealth("web");
    expect(after.index).toBeGreaterThan(before);
    expect(after.value[0]?.checks.map((c) => c.CheckID)).toEqual(["serfHealth"]);
  });
});

describe("prefix bookkeeping", () => {
  it("stays exact as prefix watchers of many lengths come and go", async () => {
    const h = new Harness();
    h.set("seed", "0");
    const prefixes = ["", "a", "a/", "a/b", "a/b/", "b"];
    const gone = new AbortController();
    // Wait and abort on every prefix, so each length is registered and then dropped again.
    const first = prefixes.map((p) => h.store.watches.wait(h.store.view().kvList(p).watch, gone.signal));
    gone.abort();
    expect(await Promise.all(first)).toEqual(prefixes.map(() => "timeout"));
    expect(h.store.watches.waiting).toBe(0);
    const view = h.store.view();
    const waits = new Map(prefixes.map((p) => [p, h.store.watches.wait(view.kvList(p).watch)]));
    h.set("a/b/c", "1");
    for (const [p, w] of waits) {
      expect(await settled(w), `prefix "${p}"`).toBe("a/b/c".startsWith(p) ? "changed" : "pending");
    }
    h.set("b", "1");
    expect(await settled(waits.get("b")!)).toBe("changed");
    expect(h.store.watches.waiting).toBe(0);
  });
});

describe("all-namespace reads", () => {
  it("wake on check changes in any namespace", async () => {
    const h = new Harness().namespaces("team");
    h.registerNode("n1", { Service: { ID: "a", Service: "api", Namespace: "team" } });
    const v = h.store.view();
    const health = h.store.watches.wait(v.serviceHealth("api", { ns: "*" }).watch);
    const checks = h.store.watches.wait(v.checksForService("api", "*").watch);
    h.registerNode("n1", { Check: { CheckID: "c", ServiceID: "a", Namespace: "team", Status: "passing" } });
    expect(await settled(health)).toBe("changed");
    expect(await settled(checks)).toBe("changed");
  });
});
