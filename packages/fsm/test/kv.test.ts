import { describe, expect, it } from "vitest";
import { decodeCommand, encodeCommand } from "../src/index.js";
import { bytes, Harness, text } from "./helpers.js";

describe("kv set / get", () => {
  it("keeps CreateIndex, moves ModifyIndex, returns the value", () => {
    const h = new Harness();
    expect(h.set("a", "1")).toBe(true);
    expect(h.set("a", "2")).toBe(true);
    const got = h.store.view().kvGet("a");
    expect(got.value).toMatchObject({
      Key: "a",
      CreateIndex: 1,
      ModifyIndex: 2,
      LockIndex: 0,
      Namespace: "default",
    });
    expect(got.value?.Session).toBeUndefined();
    expect(text(got.value?.Value)).toBe("2");
    expect(got.index).toBe(2);
  });

  it("keeps Flags exact at 2^64-1 through encode, apply, read and snapshot", () => {
    const h = new Harness();
    const max = 2n ** 64n - 1n;
    h.set("f", "x", max);
    h.set("g", "x", 2n ** 53n + 1n);
    expect(h.store.view().kvGet("f").value?.Flags).toBe(max);
    expect(h.store.view().kvGet("g").value?.Flags).toBe(2n ** 53n + 1n);
    const restored = new Harness();
    restored.store.restoreSync(h.store.snapshot());
    expect(restored.store.view().kvGet("f").value?.Flags).toBe(max);
  });

  it("stores binary values byte for byte", () => {
    const h = new Harness();
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    h.run("kv.set", { key: "bin", value: all, flags: 0n });
    expect([...(h.store.view().kvGet("bin").value?.Value ?? [])]).toEqual([...all]);
  });

  it("a missing key reads undefined with the table index, never 0", () => {
    const h = new Harness();
    expect(h.store.view().kvGet("nope").index).toBe(1);
    h.set("a", "1");
    h.set("b", "1");
    expect(h.store.view().kvGet("nope")).toMatchObject({ value: undefined, index: 2 });
  });

  it("keeps namespaces apart", () => {
    const h = new Harness().namespaces("team");
    h.run("kv.set", { ns: "team", key: "a", value: bytes("t"), flags: 0n });
    h.set("a", "d");
    expect(text(h.store.view().kvGet("a", "team").value?.Value)).toBe("t");
    expect(text(h.store.view().kvGet("a").value?.Value)).toBe("d");
    expect(
      h.store
        .view()
        .kvList("", "*")
        .value.map((e) => e.Namespace),
    ).toEqual(["default", "team"]);
  });
});

describe("kv cas", () => {
  it("cas 0 writes only when absent", () => {
    const h = new Harness();
    expect(h.run("kv.cas", { key: "a", value: bytes("1"), flags: 0n, index: 0 })).toBe(true);
    expect(h.run("kv.cas", { key: "a", value: bytes("2"), flags: 0n, index: 0 })).toBe(false);
    expect(text(h.store.view().kvGet("a").value?.Value)).toBe("1");
  });

  it("non-zero cas needs the current ModifyIndex", () => {
    const h = new Harness();
    h.set("a", "1");
    expect(h.run("kv.cas", { key: "a", value: bytes("2"), flags: 0n, index: 7 })).toBe(false);
    expect(h.run("kv.cas", { key: "a", value: bytes("2"), flags: 0n, index: 1 })).toBe(true);
    expect(h.run("kv.cas", { key: "missing", value: bytes("2"), flags: 0n, index: 1 })).toBe(false);
  });

  it("delete-cas: 0 never deletes an existing key, a match deletes, a missing key is true", () => {
    const h = new Harness();
    h.set("a", "1");
    expect(h.run("kv.delete-cas", { key: "a", index: 0 })).toBe(false);
    expect(h.run("kv.delete-cas", { key: "a", index: 9 })).toBe(false);
    expect(h.store.view().kvGet("a").value).toBeDefined();
    expect(h.run("kv.delete-cas", { key: "a", index: 1 })).toBe(true);
    expect(h.store.view().kvGet("a").value).toBeUndefined();
    expect(h.run("kv.delete-cas", { key: "a", index: 1 })).toBe(true);
  });
});

describe("kv list, keys, delete, tombstones", () => {
  it("lists by prefix and cuts keys at the separator", () => {
    const h = new Harness();
    for (const k of ["a/b/c", "a/b/d", "a/e", "a/f/", "b/x"]) h.set(k, k);
    const v = h.store.view();
    expect(v.kvList("a/").value.map((e) => e.Key)).toEqual(["a/b/c", "a/b/d", "a/e", "a/f/"]);
    expect(v.kvKeys("a/", "/").value).toEqual(["a/b/", "a/e", "a/f/"]);
    expect(v.kvKeys("", "/").value).toEqual(["a/", "b/"]);
    expect(v.kvKeys("a/").value).toEqual(["a/b/c", "a/b/d", "a/e", "a/f/"]);
    expect(v.kvList("a/").index).toBe(4);
  });

  it("delete leaves a tombstone so the prefix index never decreases", () => {
    const h = new Harness();
    h.set("p/a", "1"); // 1
    h.set("p/b", "1"); // 2
    h.set("q/a", "1"); // 3
    expect(h.store.view().kvList("p/").index).toBe(2);
    h.del("p/b"); // 4
    expect(h.store.view().kvList("p/")).toMatchObject({ index: 4 });
    expect(h.store.view().kvList("p/").value).toHaveLength(1);
    h.set("q/b", "1"); // 5
    expect(h.store.view().kvList("p/").index).toBe(4);
  });

  it("delete-tree removes the prefix only, one tombstone per key", () => {
    const h = new Harness();
    h.set("t/a", "1");
    h.set("t/b/c", "1");
    h.set("tt", "1");
    h.run("kv.delete-tree", { prefix: "t/" }); // 4
    expect(h.store.view().kvKeys("").value).toEqual(["tt"]);
    expect(h.store.view().kvList("t/b/").index).toBe(4);
  });

  it("deleting a missing key changes nothing", () => {
    const h = new Harness();
    h.set("a", "1");
    expect(h.del("zzz")).toBe(true);
    expect(h.store.view().kvGet("zzz").index).toBe(1);
  });

  it("reap drops tombstones up to the index without lowering a prefix index below the table index", () => {
    const h = new Harness();
    h.set("r/a", "1"); // 1
    h.del("r/a"); // 2
    h.set("s", "1"); // 3
    expect(h.store.view().kvList("r/").index).toBe(2);
    h.run("tombstone.reap", { index: 2 }); // 4
    // No entries, no tombstones: the KV table index (3) is reported, still >= 2.
    expect(h.store.view().kvList("r/").index).toBe(3);
    const snap = h.snapshotBytes();
    expect(snap.includes(Buffer.from("r/a"))).toBe(false);
  });
});

describe("commands", () => {
  it("round-trip through encode and decode", () => {
    const c = { v: 1, type: "kv.set", key: "k", value: bytes("v"), flags: 2n ** 64n - 1n } as const;
    expect(decodeCommand(encodeCommand(c))).toMatchObject({
      type: "kv.set",
      key: "k",
      flags: 2n ** 64n - 1n,
    });
  });
});
