import { describe, expect, it } from "vitest";
import { encodeConfEntry } from "../../src/core/conf.js";
import { RaftLog } from "../../src/core/log.js";
import { RaftCore } from "../../src/core/raft.js";
import { TermRuns } from "../../src/core/term-runs.js";
import type { ConfState, Entry, RestoreState } from "../../src/core/types.js";
import { bytes, config, TestCluster } from "./harness.js";

const conf3: ConfState = { voters: ["a", "b", "c"], learners: [] };
const none: ConfState = { voters: [], learners: [] };
const e = (index: number, term: number, data = `e${index}`): Entry => ({
  index,
  term,
  kind: "normal",
  data: bytes(data),
});
const confEntry = (index: number, term: number, conf: ConfState): Entry => ({
  index,
  term,
  kind: "conf",
  data: encodeConfEntry({ change: null, conf }),
});

describe("TermRuns", () => {
  it("keeps one run per term and answers any index by bisection", () => {
    const r = new TermRuns();
    for (let i = 1; i <= 10; i++) r.push(i, i <= 3 ? 1 : i <= 7 ? 4 : 5);
    expect(r.toArray()).toEqual([
      { index: 1, term: 1 },
      { index: 4, term: 4 },
      { index: 8, term: 5 },
    ]);
    expect([0, 1, 3, 4, 7, 8, 10].map((i) => r.termAt(i))).toEqual([undefined, 1, 1, 4, 4, 5, 5]);
    expect(() => r.push(11, 3)).toThrow(/goes back/);
  });

  it("finds the last possible match point for a rejection hint", () => {
    const r = TermRuns.from([
      { index: 1, term: 1 },
      { index: 4, term: 4 },
      { index: 8, term: 5 },
    ]);
    expect(r.lastAtMost(10, 5, 0)).toBe(10);
    expect(r.lastAtMost(10, 4, 0)).toBe(7);
    expect(r.lastAtMost(10, 3, 0)).toBe(3);
    expect(r.lastAtMost(6, 2, 0)).toBe(3);
    expect(r.lastAtMost(10, 0, 0)).toBe(0);
    // Never below the floor (the snapshot's index).
    expect(r.lastAtMost(10, 3, 5)).toBe(5);
  });

  it("forgets a truncated suffix and a compacted prefix", () => {
    const r = TermRuns.from([
      { index: 1, term: 1 },
      { index: 4, term: 4 },
      { index: 8, term: 5 },
    ]);
    r.truncateFrom(6);
    expect(r.toArray()).toEqual([
      { index: 1, term: 1 },
      { index: 4, term: 4 },
    ]);
    r.dropThrough(4, 7);
    expect(r.toArray()).toEqual([{ index: 5, term: 4 }]);
    // Compacting the whole log leaves no run that could start past its end.
    r.dropThrough(7, 7);
    expect(r.length).toBe(0);
  });
});

describe("RaftLog window", () => {
  it("keeps the unstable tail and, once durable, only the newest entries within its limits", () => {
    const log = new RaftLog(0, 0, none, [], { maxEntries: 3, maxBytes: 1 << 20 });
    for (let i = 1; i <= 10; i++) log.append(e(i, 1));
    // Nothing is durable yet: everything stays.
    expect(log.entry(1)?.index).toBe(1);
    expect(log.unstableEntries()).toHaveLength(10);
    log.markHandedOff();
    log.markStable();
    log.trim();
    expect([1, 7, 8, 10].map((i) => log.missing(i))).toEqual([true, true, false, false]);
    expect(log.slice(7, 11)).toEqual([]);
    expect(log.slice(8, 11).map((x) => x.index)).toEqual([8, 9, 10]);
    // Terms stay known for every index, entries or not.
    expect(log.term(1)).toBe(1);
    expect(log.lastTerm()).toBe(1);
  });

  it("bounds the window by payload bytes too", () => {
    const log = new RaftLog(0, 0, none, [], { maxEntries: 100, maxBytes: 10 });
    for (let i = 1; i <= 10; i++) log.append(e(i, 1, "12345"));
    log.markHandedOff();
    log.markStable();
    log.trim();
    expect(log.slice(1, 11, Number.POSITIVE_INFINITY)).toEqual([]);
    expect(log.missing(8)).toBe(true);
    expect(log.missing(9)).toBe(false);
  });

  it("takes back entries read from storage, ignoring any the log no longer holds", () => {
    const log = new RaftLog(0, 0, none, [], { maxEntries: 2, maxBytes: 1 << 20 });
    for (let i = 1; i <= 6; i++) log.append(e(i, i <= 3 ? 1 : 2));
    log.markHandedOff();
    log.markStable();
    log.trim();
    // A range read before a leader replaced index 3 onwards carries a stale term there: it stops before it.
    log.supply([e(1, 1), e(2, 1), e(3, 9)]);
    expect(log.slice(1, 7).map((x) => x.index)).toEqual([1, 2]);
    // A later read replaces the earlier one; entries that reach into the window are not taken twice.
    log.supply([e(3, 1), e(4, 2), e(5, 2)]);
    expect(log.missing(1)).toBe(true);
    expect(log.slice(3, 7).map((x) => x.index)).toEqual([3, 4, 5, 6]);
  });

  it("a conflict before the window restarts it at the conflict", () => {
    const log = new RaftLog(0, 0, none, [], { maxEntries: 2, maxBytes: 1 << 20 });
    for (let i = 1; i <= 6; i++) log.append(e(i, 1));
    log.markHandedOff();
    log.markStable();
    log.trim();
    expect(log.merge([e(3, 2), e(4, 2)])).toBe(3);
    expect(log.lastIndex()).toBe(4);
    expect(log.unstable).toBe(3);
    expect(log.stable).toBe(2);
    expect(log.unstableEntries().map((x) => `${x.index}/${x.term}`)).toEqual(["3/2", "4/2"]);
    expect([1, 2, 3].map((i) => log.term(i))).toEqual([1, 1, 2]);
  });

  it("answers configurations from its conf list, entries in memory or not", () => {
    const two: ConfState = { voters: ["a", "b"], learners: [] };
    const log = new RaftLog(0, 0, none, [], { maxEntries: 1, maxBytes: 1 << 20 });
    log.append(confEntry(1, 1, two));
    for (let i = 2; i <= 4; i++) log.append(e(i, 1));
    log.append(confEntry(5, 1, conf3));
    log.append(e(6, 1));
    log.markHandedOff();
    log.markStable();
    log.trim();
    expect(log.confAt(4)).toEqual({ index: 1, conf: two });
    expect(log.confAt(6)).toEqual({ index: 5, conf: conf3 });
    log.compact(4);
    expect(log.offsetConf).toEqual(two);
    expect(log.confAt(4)).toEqual({ index: 4, conf: two });
    expect(log.term(4)).toBe(1);
    expect(log.term(3)).toBeUndefined();
  });

  it("starts from storage's bounds with only the newest entries in hand", () => {
    const bounds = {
      lastIndex: 1000,
      terms: [
        { index: 1, term: 1 },
        { index: 500, term: 3 },
      ],
      confs: [confEntry(1, 1, conf3)],
    };
    const log = new RaftLog(
      0,
      0,
      none,
      [e(999, 3), e(1000, 3)],
      { maxEntries: 10, maxBytes: 1 << 20 },
      bounds,
    );
    expect(log.lastIndex()).toBe(1000);
    expect([1, 499, 500, 1000].map((i) => log.term(i))).toEqual([1, 1, 3, 3]);
    expect(log.confAt(1000)).toEqual({ index: 1, conf: conf3 });
    expect(log.missing(998)).toBe(true);
    expect(log.entry(999)?.index).toBe(999);
    expect(() => new RaftLog(0, 0, none, [e(998, 3)], undefined, bounds)).toThrow(/does not end/);
  });
});

describe("the core over a bounded log", () => {
  const tiny = { logCache: { maxEntries: 2, maxBytes: 1 << 20 } };

  it("catches up a lagging follower from storage, a range at a time", () => {
    const c = new TestCluster(["a", "b", "c"], tiny);
    c.elect("a");
    c.drop = (m) => m.to === "c" || m.from === "c";
    for (let i = 0; i < 40; i++) {
      c.get("a").propose(bytes(`x${i}`));
      c.deliver();
    }
    c.drop = () => false;
    for (let i = 0; i < 10 && c.dataOf("c").length < 40; i++) {
      c.tick("a");
      c.deliver();
    }
    expect(c.dataOf("c")).toEqual(Array.from({ length: 40 }, (_, i) => `x${i}`));
    const fetches = c.readys.get("a")!.filter((r) => r.fetch);
    expect(fetches.length).toBeGreaterThan(0);
    // Every append the leader sent carried the entries the follower needed, in order.
    expect(c.get("a").status().progress?.c).toMatchObject({ match: c.get("a").status().lastIndex });
  });

  it("a restarted server applies its committed log from storage in bounded batches", () => {
    const c = new TestCluster(["a"], tiny);
    c.elect("a");
    for (let i = 0; i < 30; i++) c.get("a").propose(bytes(`x${i}`));
    c.deliver();
    const durable = c.durable("a");
    const last = durable.entries.at(-1)!;
    const restored: RestoreState = {
      // The commit index rides on the next write; say it reached the end.
      hardState: { ...durable.hardState, commit: last.index },
      snapshot: null,
      entries: durable.entries.slice(-1),
      bounds: {
        lastIndex: last.index,
        terms: runsOf(durable.entries),
        confs: durable.entries.filter((x) => x.kind === "conf"),
      },
    };
    const fresh = new TestCluster([], tiny);
    const core = new RaftCore(config("a", { ...tiny, maxAppendBytes: 2 }), restored);
    fresh.add(core);
    fresh.readys.set("a", c.readys.get("a")!);
    fresh.applied.set("a", []);
    fresh.flush();
    const applied = fresh.applied.get("a")!;
    expect(applied.map((x) => x.index)).toEqual(durable.entries.map((x) => x.index));
    const batches = fresh.readys.get("a")!.filter((r) => r.fetch);
    expect(batches.length).toBeGreaterThan(3);
  });
});

function runsOf(entries: Entry[]): { index: number; term: number }[] {
  const r = new TermRuns();
  for (const x of entries) r.push(x.index, x.term);
  return r.toArray();
}
