import { describe, expect, it } from "vitest";
import type { KvEntry } from "../src/kv-api.js";
import {
  decodeSemaphore,
  encodeSemaphore,
  holdsSlot,
  LOCK_FLAGS,
  mutexView,
  planMutexCleanup,
  planSemaphoreAcquire,
  planSemaphoreCleanup,
  planSemaphoreRelease,
  SEMAPHORE_FLAGS,
} from "../src/lock/protocol.js";

function kv(key: string, opts: Partial<KvEntry> = {}): KvEntry {
  return {
    key,
    value: Buffer.alloc(0),
    flags: SEMAPHORE_FLAGS,
    createIndex: 1n,
    modifyIndex: 1n,
    lockIndex: 0n,
    session: "",
    ...opts,
  };
}

function semaphoreEntry(limit: number, holders: string[], modifyIndex = 10n): KvEntry {
  return kv("svc/.lock", { value: encodeSemaphore({ limit, holders: new Set(holders) }), modifyIndex });
}

describe("mutexView", () => {
  it("tells free, held, mine and conflicting keys apart", () => {
    expect(mutexView(undefined, "s1")).toBe("free");
    expect(mutexView(kv("svc/.lock", { flags: LOCK_FLAGS }), "s1")).toBe("free");
    expect(mutexView(kv("svc/.lock", { flags: LOCK_FLAGS, session: "s2" }), "s1")).toBe("held");
    expect(mutexView(kv("svc/.lock", { flags: LOCK_FLAGS, session: "s1" }), "s1")).toBe("mine");
    expect(mutexView(kv("svc/.lock", { flags: 0n, session: "s2" }), "s1")).toBe("conflict");
  });
});

describe("semaphore document", () => {
  it("encodes as consul's semaphoreLock JSON with sorted holders", () => {
    const text = encodeSemaphore({ limit: 2, holders: new Set(["b", "a"]) }).toString();
    expect(text).toBe('{"Limit":2,"Holders":{"a":true,"b":true}}');
    expect(decodeSemaphore(kv("k", { value: Buffer.from(text) }), 9)).toEqual({
      limit: 2,
      holders: new Set(["a", "b"]),
    });
  });

  it("treats a missing or empty key as a new semaphore with the local limit", () => {
    expect(decodeSemaphore(undefined, 3)).toEqual({ limit: 3, holders: new Set() });
    expect(decodeSemaphore(kv("k"), 3)).toEqual({ limit: 3, holders: new Set() });
  });

  it("refuses a document that is not JSON", () => {
    expect(() => decodeSemaphore(kv("k", { value: Buffer.from("nope") }), 1)).toThrow(/lock decoding failed/);
  });
});

describe("planSemaphoreAcquire", () => {
  const contender = (s: string) => kv(`svc/${s}`, { session: s });

  it("creates the lock document when there is none (cas 0)", () => {
    const plan = planSemaphoreAcquire("svc", "s1", 2, [contender("s1")]);
    expect(plan.kind).toBe("write");
    if (plan.kind !== "write") return;
    expect(plan.cas).toBe(0n);
    expect(plan.value.toString()).toBe('{"Limit":2,"Holders":{"s1":true}}');
  });

  it("adds itself while slots are free, with the document's modify index as cas", () => {
    const entries = [semaphoreEntry(2, ["s1"], 42n), contender("s1"), contender("s2")];
    const plan = planSemaphoreAcquire("svc", "s2", 2, entries);
    expect(plan).toMatchObject({ kind: "write", cas: 42n });
  });

  it("waits when every slot has a live holder", () => {
    const entries = [semaphoreEntry(2, ["s1", "s2"]), contender("s1"), contender("s2"), contender("s3")];
    expect(planSemaphoreAcquire("svc", "s3", 2, entries)).toEqual({ kind: "wait" });
  });

  it("frees the slots of holders whose session has no key left", () => {
    const entries = [semaphoreEntry(2, ["dead", "s1"]), contender("s1"), contender("s3")];
    const plan = planSemaphoreAcquire("svc", "s3", 2, entries);
    expect(plan.kind).toBe("write");
    if (plan.kind === "write")
      expect(plan.value.toString()).toBe('{"Limit":2,"Holders":{"s1":true,"s3":true}}');
  });

  it("reports a limit disagreement and a key used as a lock", () => {
    expect(planSemaphoreAcquire("svc", "s1", 3, [semaphoreEntry(2, [])])).toEqual({
      kind: "conflict",
      reason: "semaphore limit conflict (lock: 2, local: 3)",
    });
    const lock = kv("svc/.lock", { flags: LOCK_FLAGS, session: "x" });
    expect(planSemaphoreAcquire("svc", "s1", 2, [lock])).toMatchObject({ kind: "conflict" });
  });

  it("never hands out more than the limit, whatever the order of contenders", () => {
    const sessions = ["a", "b", "c", "d", "e"];
    let entries: KvEntry[] = sessions.map(contender);
    let granted = 0;
    for (const s of sessions) {
      const plan = planSemaphoreAcquire("svc", s, 3, entries);
      if (plan.kind !== "write") continue;
      granted++;
      entries = [...entries.filter((e) => e.key !== "svc/.lock"), kv("svc/.lock", { value: plan.value })];
    }
    expect(granted).toBe(3);
    expect(sessions.filter((s) => holdsSlot("svc", s, 3, entries))).toEqual(["a", "b", "c"]);
  });
});

describe("release and cleanup", () => {
  it("removes only the releasing holder", () => {
    const plan = planSemaphoreRelease(semaphoreEntry(2, ["s1", "s2"], 5n), "s1", 2);
    expect(plan?.cas).toBe(5n);
    expect(plan?.value.toString()).toBe('{"Limit":2,"Holders":{"s2":true}}');
    expect(planSemaphoreRelease(semaphoreEntry(2, ["s2"]), "s1", 2)).toBeUndefined();
  });

  it("deletes the semaphore document only when no live holder remains", () => {
    expect(planSemaphoreCleanup("svc", 2, [])).toEqual({ kind: "nothing" });
    expect(planSemaphoreCleanup("svc", 2, [semaphoreEntry(2, ["gone"], 8n)])).toEqual({
      kind: "delete",
      cas: 8n,
    });
    const live = [semaphoreEntry(2, ["s2"]), kv("svc/s2", { session: "s2" })];
    expect(planSemaphoreCleanup("svc", 2, live)).toEqual({ kind: "in-use" });
  });

  it("deletes a lock key only when unheld and really a lock", () => {
    expect(planMutexCleanup(undefined)).toEqual({ kind: "nothing" });
    expect(planMutexCleanup(kv("k", { flags: LOCK_FLAGS, modifyIndex: 3n }))).toEqual({
      kind: "delete",
      cas: 3n,
    });
    expect(planMutexCleanup(kv("k", { flags: LOCK_FLAGS, session: "s" }))).toEqual({ kind: "in-use" });
    expect(planMutexCleanup(kv("k", { flags: 1n }))).toEqual({ kind: "conflict" });
  });
});
