import { describe, expect, it } from "vitest";
import { checkBank } from "../src/check/bank.js";
import { checkLocks, type Hold, holdInterval } from "../src/check/lock.js";
import { distribution } from "../src/check/percentiles.js";
import { checkRegisters, type RegisterOp } from "../src/check/register.js";
import { checkSet } from "../src/check/set.js";

const read = (
  process: number,
  invoke: number,
  complete: number | undefined,
  value: string | null,
): RegisterOp => ({
  process,
  key: "k",
  invoke,
  complete,
  f: "read",
  value,
});
const write = (process: number, invoke: number, complete: number | undefined, value: string): RegisterOp => ({
  process,
  key: "k",
  invoke,
  complete,
  f: "write",
  value,
});
const cas = (
  process: number,
  invoke: number,
  complete: number | undefined,
  from: string | null,
  to: string,
  ok: boolean | undefined,
): RegisterOp => ({ process, key: "k", invoke, complete, f: "cas", from, to, ok });

describe("register linearizability", () => {
  it("accepts a sequential history", () => {
    const v = checkRegisters([
      read(0, 0, 1, null),
      write(0, 2, 3, "a"),
      read(1, 4, 5, "a"),
      cas(1, 6, 7, "a", "b", true),
    ]);
    expect(v.valid).toBe(true);
  });

  it("accepts concurrent operations ordered either way", () => {
    // The read overlaps the write, so it may see the old or the new value.
    expect(checkRegisters([write(0, 0, 10, "a"), read(1, 1, 2, "a")]).valid).toBe(true);
    expect(checkRegisters([write(0, 0, 10, "a"), read(1, 1, 2, null)]).valid).toBe(true);
  });

  it("rejects a stale read after a completed write", () => {
    const v = checkRegisters([write(0, 0, 1, "a"), write(0, 2, 3, "b"), read(1, 4, 5, "a")]);
    expect(v.valid).toBe(false);
    const failure = v.failures[0]!.result;
    expect(failure.verdict).toBe("not-linearizable");
    if (failure.verdict === "not-linearizable")
      expect(failure.stuckAt).toMatchObject({ f: "read", value: "a" });
  });

  it("rejects two successful CAS from the same value", () => {
    const v = checkRegisters([
      write(0, 0, 1, "a"),
      cas(1, 2, 5, "a", "b", true),
      cas(2, 3, 6, "a", "c", true),
    ]);
    expect(v.valid).toBe(false);
  });

  it("rejects a failed CAS when the value matched throughout", () => {
    expect(
      checkRegisters([write(0, 0, 1, "a"), cas(1, 2, 3, "a", "b", false), read(0, 4, 5, "a")]).valid,
    ).toBe(false);
  });

  it("lets an unknown write take effect late or never", () => {
    const unknown = write(0, 0, undefined, "a");
    expect(checkRegisters([unknown, read(1, 5, 6, null), read(1, 7, 8, "a")]).valid).toBe(true);
    expect(checkRegisters([unknown, read(1, 5, 6, null)]).valid).toBe(true);
    // ...but not before its invocation.
    expect(checkRegisters([read(1, 0, 1, "a"), write(0, 2, undefined, "a")]).valid).toBe(false);
  });

  it("rejects a value flipping back (non-monotonic reads)", () => {
    const v = checkRegisters([write(0, 0, 10, "a"), read(1, 1, 2, "a"), read(1, 3, 4, null)]);
    expect(v.valid).toBe(false);
  });

  it("checks keys independently", () => {
    const other: RegisterOp = { ...read(2, 4, 5, "z"), key: "other" };
    const v = checkRegisters([write(0, 0, 1, "a"), read(1, 2, 3, "a"), other]);
    expect(v.valid).toBe(false);
    expect(v.failures.map((f) => f.key)).toEqual(["other"]);
  });

  it("handles many concurrent unknown writes within budget", () => {
    const ops: RegisterOp[] = [];
    for (let i = 0; i < 12; i++) ops.push(write(i, i, undefined, `v${i}`));
    for (let i = 0; i < 40; i++) ops.push(read(99, 100 + 2 * i, 101 + 2 * i, "v3"));
    expect(checkRegisters(ops).valid).toBe(true);
  });

  it("says unknown, not invalid, when the search budget runs out", () => {
    const ops: RegisterOp[] = [];
    for (let i = 0; i < 14; i++) ops.push(write(i, i, undefined, `v${i}`));
    ops.push(read(99, 100, 101, "nope"));
    const v = checkRegisters(ops, 50);
    expect(v.valid).toBe("unknown");
  });
});

describe("set", () => {
  it("accepts acknowledged adds present and unknown adds either way", () => {
    const v = checkSet(
      [
        { key: "s", element: "1", outcome: "ok" },
        { key: "s", element: "2", outcome: "unknown" },
        { key: "s", element: "3", outcome: "unknown" },
        { key: "s", element: "4", outcome: "fail" },
      ],
      new Map([["s", ["1", "3"]]]),
    );
    expect(v).toMatchObject({ valid: true, acknowledged: 1, unknownAdds: 2, recovered: 1 });
  });

  it("reports lost, duplicated and unexpected elements", () => {
    const v = checkSet(
      [
        { key: "s", element: "1", outcome: "ok" },
        { key: "s", element: "2", outcome: "ok" },
        { key: "s", element: "4", outcome: "fail" },
      ],
      new Map([["s", ["2", "2", "4", "9"]]]),
    );
    expect(v.valid).toBe(false);
    expect(v.lost).toEqual(["s/1"]);
    expect(v.duplicated).toEqual(["s/2"]);
    expect(v.unexpected).toEqual(["s/4", "s/9"]);
  });

  it("is unknown when a key was never read back", () => {
    expect(checkSet([{ key: "s", element: "1", outcome: "ok" }], new Map()).valid).toBe("unknown");
  });
});

describe("locks", () => {
  const hold = (client: number, start: number, end: number, lock = "l"): Hold => ({
    lock,
    client,
    session: `s${client}`,
    start,
    end,
  });

  it("accepts back-to-back holds", () => {
    expect(checkLocks([hold(1, 0, 10), hold(2, 10, 20), hold(1, 25, 30)]).valid).toBe(true);
  });

  it("finds two clients holding at once", () => {
    const v = checkLocks([hold(1, 0, 10), hold(2, 5, 20), hold(3, 30, 40)]);
    expect(v.valid).toBe(false);
    expect(v.overlaps).toHaveLength(1);
    expect(v.overlaps[0]!.map((h) => h.client)).toEqual([1, 2]);
  });

  it("treats different locks independently", () => {
    expect(checkLocks([hold(1, 0, 10, "a"), hold(2, 5, 20, "b")]).valid).toBe(true);
  });

  it("ends a lost hold at the last confirmation plus lock-delay", () => {
    // Acquired at 100 (invoked at 90), session lost; the release came at 9000 but lock-delay is 1000 ms.
    const lost = holdInterval(100, 9000, true, 90, 1000);
    expect(lost).toEqual({ start: 100, end: 1090 });
    expect(checkLocks([{ ...hold(1, 0, 0), ...lost }, hold(2, 1200, 1300)]).valid).toBe(true);
    expect(checkLocks([{ ...hold(1, 0, 0), ...lost }, hold(2, 1000, 1300)]).valid).toBe(false);
    expect(holdInterval(100, 500, false, 90, 1000)).toEqual({ start: 100, end: 500 });
  });
});

describe("bank", () => {
  const accounts = ["a", "b", "c"];
  it("accepts conserved totals", () => {
    const v = checkBank(
      [
        { time: 1, balances: { a: 10, b: 10, c: 10 } },
        { time: 2, balances: { a: 5, b: 15, c: 10 } },
      ],
      accounts,
      30,
    );
    expect(v).toMatchObject({ valid: true, reads: 2 });
  });

  it("flags a torn transfer, a missing account and a negative balance", () => {
    const v = checkBank(
      [
        { time: 1, balances: { a: 5, b: 10, c: 10 } },
        { time: 2, balances: { a: 15, b: 15 } },
        { time: 3, balances: { a: -5, b: 25, c: 10 } },
      ],
      accounts,
      30,
    );
    expect(v.valid).toBe(false);
    expect(v.bad.map((b) => b.reason)).toEqual(["total 25 instead of 30", "missing c", "negative a"]);
  });
});

describe("distribution", () => {
  it("gives nearest-rank percentiles", () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(distribution(values)).toEqual({ count: 100, p50: 50, p99: 99, max: 100 });
    expect(distribution([])).toBeUndefined();
  });
});
