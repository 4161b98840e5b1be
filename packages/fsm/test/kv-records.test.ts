import { describe, expect, it } from "vitest";
import { type KvMeta, kvModifyIndex, kvValue, packKv, repackKv, unpackKv } from "../src/kv/records.js";

const base: KvMeta = { flags: 0n, createIndex: 1, modifyIndex: 1, lockIndex: 0, session: undefined };

function roundTrip(value: Uint8Array, meta: KvMeta): void {
  const r = packKv(value, meta);
  const m = unpackKv(r);
  expect({ ...m, valueAt: undefined }).toEqual({ ...meta, valueAt: undefined });
  expect(kvModifyIndex(r)).toBe(meta.modifyIndex);
  expect([...kvValue(r, m.valueAt)]).toEqual([...value]);
}

describe("packed KV records", () => {
  it("round-trip every field at its edges", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const edges: Partial<KvMeta>[] = [
      {},
      { modifyIndex: 127, createIndex: 128 },
      { modifyIndex: 2 ** 53 - 1, createIndex: 2 ** 32, lockIndex: 2 ** 31 + 5 },
      { flags: 2n ** 64n - 1n },
      { flags: 1n, session: "adf4238a-882b-9ddc-4a9d-5b6758e4159e", lockIndex: 1 },
      { session: "sëssion-ü-✓" },
      { modifyIndex: 0, createIndex: 0 },
    ];
    for (const edge of edges) {
      const meta = { ...base, ...edge };
      roundTrip(all, meta);
      roundTrip(new Uint8Array(0), meta);
      roundTrip(Uint8Array.of(0x80), meta);
    }
  });

  it("stores a plain entry in a few bytes more than its value, as a one-byte string", () => {
    const r = packKv(new Uint8Array(100), { ...base, modifyIndex: 1_000_000, createIndex: 1_000_000 });
    expect(r.length).toBe(100 + 1 + 3);
  });

  it("repacks the same value with a new header", () => {
    const r = packKv(Uint8Array.of(1, 2, 3), { ...base, session: "s", lockIndex: 2 });
    const next = repackKv(r, { ...base, modifyIndex: 9, createIndex: 1 });
    expect(unpackKv(next)).toMatchObject({
      modifyIndex: 9,
      createIndex: 1,
      lockIndex: 0,
      session: undefined,
    });
    expect([...kvValue(next, unpackKv(next).valueAt)]).toEqual([1, 2, 3]);
  });
});
