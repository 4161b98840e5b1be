import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isApplyError, StateStore, type TxnKVOp, type TxnResponse } from "../src/index.js";
import { bytes, Harness, text } from "./helpers.js";
import { Model, type ModelKVOp } from "./model.js";

const KEYS = ["a", "a/b", "a/c", "a/b/c", "b", "é/x"];
const PREFIXES = ["", "a", "a/", "a/b", "b", "c", "é"];
const SESSIONS = ["00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002"];

/** "current" is resolved against the model when the step runs, so cas hits as well as misses. */
type IndexChoice = number | "current";

type Step =
  | { t: "set"; key: string; value: string; flags: bigint }
  | { t: "cas"; key: string; value: string; index: IndexChoice }
  | { t: "delete"; key: string }
  | { t: "delete-cas"; key: string; index: IndexChoice }
  | { t: "delete-tree"; key: string }
  | { t: "lock"; key: string; value: string; session: string }
  | { t: "unlock"; key: string; value: string; session: string }
  | { t: "session-create"; id: string; behavior: "release" | "delete"; lockDelayMs: number }
  | { t: "session-destroy"; id: string }
  | { t: "tick"; ms: number }
  | { t: "reap"; back: number }
  | {
      t: "txn";
      ops: (
        | ModelKVOp
        | { verb: "cas" | "delete-cas" | "check-index"; key: string; index: IndexChoice; value: string }
      )[];
    };

const key = fc.constantFrom(...KEYS);
const prefix = fc.constantFrom(...PREFIXES);
const value = fc.constantFrom("", "x", "yy", "é€");
const session = fc.constantFrom(...SESSIONS);
const index: fc.Arbitrary<IndexChoice> = fc.oneof(
  fc.constant("current" as const),
  fc.integer({ min: 0, max: 30 }),
);
const flags = fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }));

const txnOp = fc.oneof(
  fc.record({ verb: fc.constant("set" as const), key, value, flags }),
  fc.record({ verb: fc.constant("cas" as const), key, value, index }),
  fc.record({ verb: fc.constant("get" as const), key }),
  fc.record({ verb: fc.constant("delete" as const), key }),
  fc.record({ verb: fc.constant("delete-cas" as const), key, index, value }),
  fc.record({ verb: fc.constant("delete-tree" as const), key: prefix }),
  fc.record({ verb: fc.constant("check-index" as const), key, index, value }),
  fc.record({ verb: fc.constant("check-not-exists" as const), key }),
  fc.record({ verb: fc.constant("check-session" as const), key, session }),
  fc.record({ verb: fc.constant("lock" as const), key, value, session }),
  fc.record({ verb: fc.constant("unlock" as const), key, value, session }),
);

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ t: fc.constant("set" as const), key, value, flags }), weight: 4 },
  fc.record({ t: fc.constant("cas" as const), key, value, index }),
  fc.record({ t: fc.constant("delete" as const), key }),
  fc.record({ t: fc.constant("delete-cas" as const), key, index }),
  fc.record({ t: fc.constant("delete-tree" as const), key: prefix }),
  { arbitrary: fc.record({ t: fc.constant("lock" as const), key, value, session }), weight: 3 },
  fc.record({ t: fc.constant("unlock" as const), key, value, session }),
  {
    arbitrary: fc.record({
      t: fc.constant("session-create" as const),
      id: session,
      behavior: fc.constantFrom("release" as const, "delete" as const),
      lockDelayMs: fc.constantFrom(0, 1_000, 5_000),
    }),
    weight: 2,
  },
  fc.record({ t: fc.constant("session-destroy" as const), id: session }),
  fc.record({ t: fc.constant("tick" as const), ms: fc.integer({ min: 1, max: 3_000 }) }),
  fc.record({ t: fc.constant("reap" as const), back: fc.integer({ min: 0, max: 10 }) }),
  {
    arbitrary: fc.record({
      t: fc.constant("txn" as const),
      ops: fc.array(txnOp, { minLength: 1, maxLength: 4 }),
    }),
    weight: 3,
  },
);

function resolve(model: Model, k: string, i: IndexChoice): number {
  return i === "current" ? (model.kv.get(k)?.modify ?? 0) : i;
}

function runStep(h: Harness, model: Model, s: Step): void {
  const idx = h.log.length + 1;
  switch (s.t) {
    case "set":
      expect(h.set(s.key, s.value, s.flags)).toBe(true);
      model.set(idx, s.key, s.value, s.flags);
      return;
    case "cas": {
      const i = resolve(model, s.key, s.index);
      expect(h.run("kv.cas", { key: s.key, value: bytes(s.value), flags: 0n, index: i })).toBe(
        model.cas(idx, s.key, s.value, i),
      );
      return;
    }
    case "delete":
      expect(h.del(s.key)).toBe(true);
      model.delete(idx, s.key);
      return;
    case "delete-cas": {
      const i = resolve(model, s.key, s.index);
      expect(h.run("kv.delete-cas", { key: s.key, index: i })).toBe(model.deleteCas(idx, s.key, i));
      return;
    }
    case "delete-tree":
      h.run("kv.delete-tree", { prefix: s.key });
      model.deleteTree(idx, s.key);
      return;
    case "lock": {
      const got = h.lock(s.key, s.session, s.value);
      const want = model.lock(idx, s.key, s.value, s.session, h.now);
      if (want === "error") expect(isApplyError(got as never)).toBe(true);
      else expect(got).toBe(want);
      return;
    }
    case "unlock":
      expect(h.unlock(s.key, s.session, s.value)).toBe(model.unlock(idx, s.key, s.value, s.session));
      return;
    case "session-create": {
      const got = h.createSession({ ID: s.id, Behavior: s.behavior, LockDelay: s.lockDelayMs * 1e6 });
      const ok = model.createSession(idx, s.id, { behavior: s.behavior, lockDelayMs: s.lockDelayMs });
      expect(isApplyError(got as never)).toBe(!ok);
      return;
    }
    case "session-destroy":
      expect(h.destroySession(s.id)).toBe(true);
      model.destroySession(idx, s.id, h.now);
      return;
    case "tick":
      h.now += s.ms;
      return;
    case "reap": {
      const upTo = Math.max(0, idx - 1 - s.back);
      expect(h.run("tombstone.reap", { index: upTo })).toBe(true);
      for (const [k, at] of [...model.tombstones]) if (at <= upTo) model.tombstones.delete(k);
      return;
    }
    case "txn": {
      const ops = s.ops.map((op): ModelKVOp => {
        if (op.verb === "cas" || op.verb === "delete-cas" || op.verb === "check-index") {
          return { ...op, index: resolve(model, op.key, op.index) };
        }
        return op as ModelKVOp;
      });
      const got = h.txn(ops.map(toTxnOp)) as TxnResponse;
      const want = model.txn(idx, ops, h.now);
      expect((got.Errors ?? []).map((e) => e.OpIndex)).toEqual(want.errors);
      expect((got.Results ?? []).map((r) => ("KV" in r ? r.KV.Key : "?"))).toEqual(want.results);
      return;
    }
  }
}

function toTxnOp(op: ModelKVOp): { KV: TxnKVOp } {
  const base = { Verb: op.verb, Key: op.key };
  switch (op.verb) {
    case "set":
      return { KV: { ...base, Value: bytes(op.value), Flags: op.flags } };
    case "cas":
      return { KV: { ...base, Value: bytes(op.value), Index: op.index } };
    case "delete-cas":
    case "check-index":
      return { KV: { ...base, Index: op.index } };
    case "check-session":
      return { KV: { ...base, Session: op.session } };
    case "lock":
    case "unlock":
      return { KV: { ...base, Value: bytes(op.value), Session: op.session } };
    default:
      return { KV: base };
  }
}

function compare(h: Harness, model: Model): void {
  const view = h.store.view();
  const entries = view.kvList("").value.map((e) => ({
    key: e.Key,
    value: text(e.Value),
    flags: e.Flags,
    create: e.CreateIndex,
    modify: e.ModifyIndex,
    lockIndex: e.LockIndex,
    session: e.Session,
  }));
  const expected = [...model.kv]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, e]) => ({ key: k, ...e }));
  expect(entries).toEqual(expected);
  for (const k of KEYS) expect(view.kvGet(k).index, `get ${k}`).toBe(model.getIndex(k));
  for (const p of PREFIXES) {
    expect(view.kvList(p).index, `list ${p}`).toBe(model.listIndex(p));
    expect(view.kvKeys(p).value).toEqual(expected.filter((e) => e.key.startsWith(p)).map((e) => e.key));
  }
  expect(
    view
      .sessionList()
      .value.map((s) => s.ID)
      .sort(),
  ).toEqual([...model.sessions.keys()].sort());
}

describe("model-based: KV, sessions and txn agree with a reference model", () => {
  it("on every result and every read", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const h = new Harness();
        h.registerNode("n1");
        const model = new Model();
        for (const s of steps) {
          runStep(h, model, s);
          compare(h, model);
        }
        // Same log, same bytes; and a restored snapshot is the same state.
        const snapshot = h.snapshotBytes();
        const replica = new StateStore();
        for (const [i, entry] of h.log.entries()) replica.apply(i + 1, entry);
        expect(Buffer.concat([...replica.snapshot()]).equals(snapshot)).toBe(true);
        const restored = new StateStore();
        restored.restoreSync([snapshot]);
        expect(Buffer.concat([...restored.snapshot()]).equals(snapshot)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
