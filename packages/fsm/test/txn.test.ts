import { describe, expect, it } from "vitest";
import { MAX_TXN_OPS, MAX_TXN_VALUE_BYTES, type TxnOp, type TxnResponse } from "../src/index.js";
import { bytes, Harness, text } from "./helpers.js";

const S1 = "11111111-1111-1111-1111-111111111111";
const kv = (op: Extract<TxnOp, { KV: unknown }>["KV"]): TxnOp => ({ KV: op });

describe("txn", () => {
  it("applies KV verbs in order and returns results without values except for reads", () => {
    const h = new Harness();
    h.set("pre", "x");
    const r = h.txn([
      kv({ Verb: "set", Key: "a", Value: bytes("1"), Flags: 5n }),
      kv({ Verb: "cas", Key: "b", Value: bytes("2"), Index: 0 }),
      kv({ Verb: "get", Key: "a" }),
      kv({ Verb: "check-index", Key: "pre", Index: 1 }),
      kv({ Verb: "check-not-exists", Key: "zzz" }),
      kv({ Verb: "get-tree", Key: "" }),
      kv({ Verb: "delete", Key: "pre" }),
    ]) as TxnResponse;
    expect(r.Errors).toBeNull();
    expect(r.Results?.map((x) => ("KV" in x ? x.KV.Key : "?"))).toEqual([
      "a",
      "b",
      "a",
      "pre",
      "a",
      "b",
      "pre",
    ]);
    const results = r.Results ?? [];
    const first = results[0];
    expect(first && "KV" in first ? first.KV.Value : "x").toBeNull();
    expect(first && "KV" in first ? first.KV.Flags : 0n).toBe(5n);
    const got = results[2];
    expect(got && "KV" in got ? text(got.KV.Value) : "").toBe("1");
    expect(h.store.view().kvKeys("").value).toEqual(["a", "b"]);
    expect(h.store.view().kvGet("a").value?.ModifyIndex).toBe(2);
  });

  it("rolls back entirely on any failure and reports every failing op", () => {
    const h = new Harness();
    h.set("a", "1");
    const before = h.snapshotBytes().subarray(30); // skip the header (it carries the applied index)
    const r = h.txn([
      kv({ Verb: "set", Key: "new", Value: bytes("1") }),
      kv({ Verb: "delete", Key: "a" }),
      kv({ Verb: "cas", Key: "x", Value: bytes("1"), Index: 99 }),
      kv({ Verb: "get", Key: "missing" }),
    ]) as TxnResponse;
    expect(r.Results).toBeNull();
    expect(r.Errors).toEqual([
      { OpIndex: 2, What: 'failed to set key "x", index is stale' },
      { OpIndex: 3, What: 'key "missing" doesn\'t exist' },
    ]);
    expect(h.store.view().kvKeys("").value).toEqual(["a"]);
    expect(h.store.view().kvGet("nope").index).toBe(1);
    expect(h.snapshotBytes().subarray(30).equals(before)).toBe(true);
  });

  it("lock, unlock and check-session", () => {
    const h = new Harness();
    h.registerNode("n1");
    h.createSession({ ID: S1 });
    let r = h.txn([kv({ Verb: "lock", Key: "l", Value: bytes("v"), Session: S1 })]) as TxnResponse;
    expect(r.Errors).toBeNull();
    r = h.txn([kv({ Verb: "check-session", Key: "l", Session: S1 })]) as TxnResponse;
    expect(r.Errors).toBeNull();
    r = h.txn([kv({ Verb: "unlock", Key: "l", Value: bytes("v"), Session: "other" })]) as TxnResponse;
    expect(r.Errors?.[0]?.What).toContain("lock isn't held");
    r = h.txn([kv({ Verb: "unlock", Key: "l", Value: bytes("v"), Session: S1 })]) as TxnResponse;
    expect(r.Errors).toBeNull();
    r = h.txn([kv({ Verb: "check-session", Key: "l", Session: S1 })]) as TxnResponse;
    expect(r.Errors?.[0]?.What).toContain("failed session check");
  });

  it("delete-tree, delete-cas and check-not-exists failures", () => {
    const h = new Harness();
    h.set("t/a", "1");
    h.set("t/b", "1");
    let r = h.txn([kv({ Verb: "delete-cas", Key: "t/a", Index: 2 })]) as TxnResponse;
    expect(r.Errors?.[0]?.What).toBe('failed to delete key "t/a", index is stale');
    r = h.txn([kv({ Verb: "check-not-exists", Key: "t/a" })]) as TxnResponse;
    expect(r.Errors?.[0]?.What).toBe('key "t/a" exists');
    r = h.txn([kv({ Verb: "delete-tree", Key: "t/" })]) as TxnResponse;
    expect(r).toEqual({ Results: [], Errors: null });
    expect(h.store.view().kvKeys("").value).toEqual([]);
  });

  it("node, service and check verbs", () => {
    const h = new Harness();
    let r = h.txn([
      { Node: { Verb: "set", Node: { Node: "n1", Address: "10.0.0.1" } } },
      { Service: { Verb: "set", Node: "n1", Service: { ID: "s1", Service: "api", Port: 81 } } },
      {
        Check: {
          Verb: "set",
          Check: { Node: "n1", CheckID: "c1", Name: "c", ServiceID: "s1", Status: "passing" },
        },
      },
      { Node: { Verb: "get", Node: { Node: "n1" } } },
    ]) as TxnResponse;
    expect(r.Errors).toBeNull();
    expect(r.Results?.map((x) => Object.keys(x)[0])).toEqual(["Node", "Service", "Check", "Node"]);
    r = h.txn([
      { Node: { Verb: "cas", Node: { Node: "n1", Address: "x", ModifyIndex: 99 } } },
    ]) as TxnResponse;
    expect(r.Errors?.[0]?.What).toBe('failed to set node "n1", index is stale');
    r = h.txn([
      { Service: { Verb: "delete-cas", Node: "n1", Service: { ID: "s1", Service: "api", ModifyIndex: 1 } } },
    ]) as TxnResponse;
    expect(r.Errors).toBeNull();
    expect(h.store.view().checksForNode("n1").value).toEqual([]);
    r = h.txn([
      { Service: { Verb: "get", Node: "n1", Service: { ID: "s1", Service: "api" } } },
    ]) as TxnResponse;
    expect(r.Errors?.[0]?.What).toBe('service "s1" on node "n1" doesn\'t exist');
    r = h.txn([{ Node: { Verb: "delete", Node: { Node: "n1" } } }]) as TxnResponse;
    expect(h.store.view().nodes().value).toEqual([]);
  });

  it("enforces 64 operations and 512 kB values with 413", () => {
    const h = new Harness();
    const many = Array.from({ length: MAX_TXN_OPS + 1 }, (_, i) =>
      kv({ Verb: "set", Key: `k${i}`, Value: bytes("") }),
    );
    expect(h.txn(many)).toMatchObject({ kind: "too-large" });
    const big = kv({ Verb: "set", Key: "big", Value: new Uint8Array(MAX_TXN_VALUE_BYTES + 1) });
    expect(h.txn([big])).toMatchObject({ kind: "too-large" });
    const ok = kv({ Verb: "set", Key: "big", Value: new Uint8Array(MAX_TXN_VALUE_BYTES) });
    expect(h.txn([...Array.from({ length: MAX_TXN_OPS - 1 }, () => ok), ok])).toMatchObject({ Errors: null });
    expect(h.store.view().kvKeys("").value).toEqual(["big"]);
  });

  it("read-only transactions run on a view", () => {
    const h = new Harness();
    h.set("a", "1");
    const view = h.store.view();
    expect(view.readTxn([kv({ Verb: "get", Key: "a" })]).Errors).toBeNull();
    expect(() => view.readTxn([kv({ Verb: "delete", Key: "a" })])).toThrow();
    expect(h.store.view().kvGet("a").value).toBeDefined();
  });
});
