import { describe, expect, it } from "vitest";
import { CommandDecodeError, encodeCommand, SnapshotFormatError, StateStore } from "../src/index.js";
import { bytes, Harness } from "./helpers.js";

const S1 = "11111111-1111-1111-1111-111111111111";

/** A mixed log touching every table. */
function script(h: Harness): void {
  h.registerNode("n1", {
    Service: { ID: "w1", Service: "web", Tags: ["a"], Meta: { z: "1", a: "2" } },
    Checks: [{ CheckID: "serfHealth", Status: "passing" }],
  });
  h.createSession({ ID: S1, Checks: ["serfHealth"], LockDelay: 1e9 });
  for (let i = 0; i < 50; i++) h.set(`k/${i}`, `v${i}`, BigInt(i) * 2n ** 58n);
  h.lock("k/lock", S1, "held");
  h.del("k/3");
  h.run("kv.delete-tree", { prefix: "k/4" });
  h.run("coordinate.batch-update", {
    updates: [{ Node: "n1", Coord: { Vec: [1], Error: 1, Adjustment: 0, Height: 0 } }],
  });
  h.destroySession(S1);
  h.set("after", "x");
}

describe("determinism and snapshots", () => {
  it("two stores applying the same log produce identical snapshot bytes", () => {
    const a = new Harness();
    script(a);
    const b = new StateStore();
    for (const [i, entry] of a.log.entries()) b.apply(i + 1, entry);
    const sa = a.snapshotBytes();
    const sb = Buffer.concat([...b.snapshot()]);
    expect(sa.equals(sb)).toBe(true);
  });

  it("snapshot -> restore -> continue equals continuing without the snapshot", async () => {
    const full = new Harness();
    script(full);
    const cut = Math.floor(full.log.length / 2);
    const straight = new StateStore();
    for (const [i, entry] of full.log.entries()) straight.apply(i + 1, entry);

    const first = new StateStore();
    for (const [i, entry] of full.log.slice(0, cut).entries()) first.apply(i + 1, entry);
    // Feed the snapshot back in awkward 7-byte chunks to exercise frame reassembly.
    const snap = Buffer.concat([...first.snapshot()]);
    const chunks = Array.from({ length: Math.ceil(snap.length / 7) }, (_, i) =>
      snap.subarray(i * 7, i * 7 + 7),
    );
    const resumed = new StateStore();
    await resumed.restore(chunks);
    expect(resumed.index).toBe(cut);
    for (const [i, entry] of full.log.slice(cut).entries()) resumed.apply(cut + i + 1, entry);
    expect(Buffer.concat([...resumed.snapshot()]).equals(Buffer.concat([...straight.snapshot()]))).toBe(true);
    expect(resumed.view().kvList("k/").value).toEqual(straight.view().kvList("k/").value);
  });

  it("a view and a running snapshot stay consistent while applies continue", () => {
    const h = new Harness();
    for (let i = 0; i < 10_000; i++) h.set(`k/${i}`, "a");
    const view = h.store.view();
    const stream = h.store.snapshot();
    const firstChunk = stream.next();
    h.run("kv.delete-tree", { prefix: "k/" });
    for (let i = 0; i < 100; i++) h.set(`new/${i}`, "b");
    expect(view.kvList("k/").value).toHaveLength(10_000);
    expect(view.kvList("new/").value).toHaveLength(0);
    const rest = [firstChunk.value as Uint8Array, ...stream];
    const restored = new StateStore();
    restored.restoreSync(rest);
    expect(restored.view().kvKeys("k/").value).toHaveLength(10_000);
    expect(restored.view().kvKeys("new/").value).toHaveLength(0);
  });

  it("bounds each frame by rows and by value bytes, and restores from either shape", () => {
    const small = new Harness();
    for (let i = 0; i < 1_200; i++) small.set(`k/${i}`, "v");
    // Header, three KV frames (512 + 512 + 176 rows), end: the rows bound.
    expect([...small.store.snapshot()]).toHaveLength(5);

    const big = new Harness();
    const value = "x".repeat(100 * 1024);
    for (let i = 0; i < 7; i++) big.set(`big/${i}`, value);
    const frames = [...big.store.snapshot()];
    // 100 KiB values: a frame closes once it holds 256 KiB of them, so 3 + 3 + 1 rows.
    expect(frames).toHaveLength(5);
    for (const f of frames) expect(f.byteLength).toBeLessThan(400 * 1024);
    const restored = new StateStore();
    restored.restoreSync(frames);
    expect(restored.view().kvKeys("big/").value).toHaveLength(7);
    expect(Buffer.concat([...restored.snapshot()]).equals(Buffer.concat(frames))).toBe(true);
  });

  it("a view does not see overwrites, lock changes or catalog updates applied after it", () => {
    const h = new Harness();
    h.registerNode("n1", { Address: "1.1.1.1", Service: { ID: "w", Service: "web" } });
    for (let i = 0; i < 2_000; i++) h.set(`k/${i}`, "old");
    const view = h.store.view();
    for (let i = 0; i < 2_000; i += 3) h.set(`k/${i}`, "new");
    h.registerNode("n1", { Address: "2.2.2.2", Service: { ID: "w", Service: "web", Port: 9 } });
    expect(
      view.kvList("k/").value.every((e) => e.Value !== null && Buffer.from(e.Value).toString() === "old"),
    ).toBe(true);
    expect(view.node("n1").value?.node.Address).toBe("1.1.1.1");
    expect(view.serviceInstances("web").value[0]?.service.Port).toBe(0);
    expect(h.store.view().serviceInstances("web").value[0]?.service.Port).toBe(9);
  });

  it("restore rebuilds the secondary indexes", () => {
    const h = new Harness();
    h.registerNode("n1", {
      ID: "aaaaaaaa-0000-0000-0000-000000000001",
      Service: { ID: "w", Service: "web" },
      Check: { CheckID: "serfHealth", Status: "passing" },
    });
    h.createSession({ ID: S1, Checks: ["serfHealth"] });
    h.lock("l", S1);
    const r = new Harness();
    r.store.restoreSync(h.store.snapshot());
    const v = r.store.view();
    expect(v.sessionsForNode("n1").value.map((s) => s.ID)).toEqual([S1]);
    expect(v.serviceInstances("web").value).toHaveLength(1);
    expect(v.node("aaaaaaaa-0000-0000-0000-000000000001").value?.node.Node).toBe("n1");
    // Continue on the restored store: the check going critical must still find the session and its lock.
    for (let i = 0; i < h.log.length; i++) r.log.push(new Uint8Array());
    r.registerNode("n1", { Check: { CheckID: "serfHealth", Status: "critical" } });
    expect(r.store.view().sessionList().value).toEqual([]);
    expect(r.store.view().kvGet("l").value?.Session).toBeUndefined();
  });

  it("rejects truncated or foreign snapshots", () => {
    const h = new Harness();
    h.set("a", "1");
    const snap = h.snapshotBytes();
    expect(() => new StateStore().restoreSync([snap.subarray(0, snap.length - 3)])).toThrow(
      SnapshotFormatError,
    );
    expect(() => new StateStore().restoreSync([Buffer.from([0, 0, 0, 1, 0x90])])).toThrow(
      SnapshotFormatError,
    );
  });
});

describe("bad input", () => {
  it("unknown type, unknown version, wrong fields and garbage throw before any change", () => {
    const h = new Harness();
    h.set("a", "1");
    const before = h.snapshotBytes();
    const enc = (o: unknown) => encodeCommand(o as never);
    const bad = [
      enc({ v: 1, type: "kv.frobnicate", key: "a" }),
      enc({ v: 2, type: "kv.set", key: "a", value: bytes("x"), flags: 0n }),
      enc({ type: "kv.set", key: "a", value: bytes("x"), flags: 0n }),
      enc({ v: 1, type: "kv.set", key: 5, value: bytes("x"), flags: 0n }),
      enc({ v: 1, type: "kv.set", key: "a", value: bytes("x"), flags: -1 }),
      enc({ v: 1, type: "txn", ops: [{ KV: { Verb: "explode", Key: "a" } }], now: 1 }),
      enc({ v: 1, type: "txn", ops: [{ KV: { Verb: "set", Key: "a" }, Node: {} }], now: 1 }),
      enc([1, 2, 3]),
      Uint8Array.from([0xc1]),
    ];
    for (const data of bad) expect(() => h.store.apply(2, data)).toThrow(CommandDecodeError);
    expect(h.store.index).toBe(1);
    expect(h.snapshotBytes().equals(before)).toBe(true);
  });

  it("names the problem", () => {
    const h = new Harness();
    expect(() => h.store.apply(1, encodeCommand({ v: 1, type: "nope" } as never))).toThrow(
      'unknown command type "nope"',
    );
    expect(() => h.store.apply(1, encodeCommand({ v: 9, type: "kv.set" } as never))).toThrow(
      "unsupported command version 9",
    );
  });

  it("refuses an index that does not advance", () => {
    const h = new Harness();
    h.set("a", "1");
    const data = encodeCommand({ v: 1, type: "kv.set", key: "b", value: bytes("x"), flags: 0n });
    expect(() => h.store.apply(1, data)).toThrow(RangeError);
    expect(h.store.view().kvGet("b").value).toBeUndefined();
  });
});
