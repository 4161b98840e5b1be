// The watch rules without processes: what is asked per type, which parameters are refused, when the handler runs.
import { describe, expect, it } from "vitest";
import { parseWatch, type WatchParams, WatchProgress } from "../src/commands/watch-plan.js";

const params = (entries: Record<string, string | boolean>): WatchParams => new Map(Object.entries(entries));

describe("parseWatch", () => {
  it("builds each type's request", () => {
    expect(parseWatch(params({ type: "key", key: "a/b c" }))).toMatchObject({
      path: "/v1/kv/a/b%20c",
      notFoundIsEmpty: true,
      stale: false,
    });
    expect(parseWatch(params({ type: "keyprefix", prefix: "cfg/", stale: true }))).toMatchObject({
      path: "/v1/kv/cfg/",
      query: { recurse: "" },
      stale: true,
    });
    expect(parseWatch(params({ type: "services" })).path).toBe("/v1/catalog/services");
    expect(parseWatch(params({ type: "nodes", datacenter: "dc1", token: "t" })).path).toBe(
      "/v1/catalog/nodes",
    );
    expect(
      parseWatch(params({ type: "service", service: "web", tag: "v2", passingonly: true })),
    ).toMatchObject({
      path: "/v1/health/service/web",
      query: { tag: "v2", passing: "1" },
    });
    expect(parseWatch(params({ type: "checks" })).path).toBe("/v1/health/state/any");
    expect(parseWatch(params({ type: "checks", state: "critical" })).path).toBe("/v1/health/state/critical");
    expect(parseWatch(params({ type: "checks", service: "web" })).path).toBe("/v1/health/checks/web");
    expect(parseWatch(params({ type: "event", name: "deploy" }))).toMatchObject({
      path: "/v1/event/list",
      query: { name: "deploy" },
      stale: false,
    });
  });

  it("refuses what consul's watch parser refuses", () => {
    const refused = (p: Record<string, string | boolean>) => () => parseWatch(params(p));
    expect(refused({})).toThrow("Watch type must be specified");
    expect(refused({ type: "connect_roots" })).toThrow("Unsupported watch type: connect_roots");
    expect(refused({ type: "key" })).toThrow("Must specify a single key to watch");
    expect(refused({ type: "keyprefix" })).toThrow("Must specify a single prefix to watch");
    expect(refused({ type: "service" })).toThrow("Must specify a single service to watch");
    expect(refused({ type: "checks", service: "a", state: "passing" })).toThrow(
      "Cannot specify service and state",
    );
    expect(refused({ type: "services", key: "x", name: "n" })).toThrow("Invalid parameters: [key name]");
    // Events have no stale mode, so -stale is a parameter the event watch does not take.
    expect(refused({ type: "event", stale: true })).toThrow("Invalid parameters: [stale]");
    expect(refused({ type: "key", key: "k", passingonly: true })).toThrow(
      "Invalid parameters: [passingonly]",
    );
  });
});

describe("WatchProgress", () => {
  it("runs on the first answer and on changed data, not on the same index or the same data", () => {
    const p = new WatchProgress(parseWatch(params({ type: "services" })));
    expect(p.waitIndex).toBe(0n);
    expect(p.observe(5n, { web: [] })).toEqual({ run: true, index: 5n, data: { web: [] } });
    expect(p.waitIndex).toBe(5n);
    expect(p.observe(5n, { web: [] })).toEqual({ run: false });
    // A new index with the same data: nothing to do, but the index moves on.
    expect(p.observe(6n, { web: [] })).toEqual({ run: false });
    expect(p.waitIndex).toBe(6n);
    expect(p.observe(7n, { web: ["v2"] })).toMatchObject({ run: true, index: 7n });
    // After an error the next answer runs the handler again, as consul's plan does.
    p.reset();
    expect(p.waitIndex).toBe(0n);
    expect(p.observe(7n, { web: ["v2"] })).toMatchObject({ run: true });
  });

  it("hands a key watch the Go client's KVPair, and null for a missing key", () => {
    const p = new WatchProgress(parseWatch(params({ type: "key", key: "k" })));
    const entry = { LockIndex: 0, Key: "k", Flags: 3, Value: "dg==", CreateIndex: 4, ModifyIndex: 9 };
    const step = p.observe(9n, [entry]);
    expect(step.run && JSON.stringify(step.data)).toBe(
      '{"Key":"k","CreateIndex":4,"ModifyIndex":9,"LockIndex":0,"Flags":3,"Value":"dg==","Session":""}',
    );
    expect(p.observe(10n, undefined)).toEqual({ run: true, index: 10n, data: null });
  });

  it("passes an event watch only the events after those it has seen", () => {
    const p = new WatchProgress(parseWatch(params({ type: "event" })));
    const e = (id: string) => ({ ID: id, Name: "n" });
    expect(p.observe(1n, [])).toEqual({ run: true, index: 1n, data: [] });
    expect(p.observe(11n, [e("a")])).toEqual({ run: true, index: 11n, data: [e("a")] });
    expect(p.observe(12n, [e("a"), e("b"), e("c")])).toEqual({
      run: true,
      index: 12n,
      data: [e("b"), e("c")],
    });
    expect(p.observe(13n, [e("a"), e("b"), e("c"), e("d")])).toEqual({
      run: true,
      index: 13n,
      data: [e("d")],
    });
    // The last seen event fell out of the agent's buffer: everything listed is new.
    expect(p.observe(14n, [e("x"), e("y")])).toEqual({ run: true, index: 14n, data: [e("x"), e("y")] });
  });
});
