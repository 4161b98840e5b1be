import { describe, expect, it } from "vitest";
import { encodeCommand, StateStore } from "../src/index.js";

describe("smoke", () => {
  it("sets and reads a key", () => {
    const store = new StateStore();
    const r = store.apply(1, encodeCommand({ v: 1, type: "kv.set", key: "a/b", value: new Uint8Array([1, 2]), flags: 2n ** 64n - 1n }));
    expect(r).toBe(true);
    const got = store.view().kvGet("a/b");
    expect(got.value?.Flags).toBe(2n ** 64n - 1n);
    expect([...(got.value?.Value ?? [])]).toEqual([1, 2]);
    expect(got.index).toBe(1);
  });
});
