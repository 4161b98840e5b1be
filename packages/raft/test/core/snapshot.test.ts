import { describe, expect, it } from "vitest";
import { RaftCore } from "../../src/core/raft.js";
import type { Message } from "../../src/core/types.js";
import { bytes, carryOut, config, EMPTY_RESTORE, TestCluster } from "./harness.js";

describe("compaction and snapshots", () => {
  it("compact drops the log through an applied index and returns the snapshot metadata", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    for (let i = 0; i < 5; i++) c.get("a").propose(bytes(`x${i}`));
    c.deliver();
    const meta = c.get("a").compact(5);
    expect(meta).toEqual({ index: 5, term: 2, conf: { voters: ["a", "b", "c"], learners: [] } });
    expect(c.get("a").status().firstIndex).toBe(6);
    expect(c.get("a").entryAt(5)).toBeUndefined();
    expect(() => c.get("a").compact(99)).toThrow(/beyond applied/);
  });

  it("sends a snapshot to a follower that needs compacted entries, and resumes replication after it", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    c.drop = (m) => m.to === "c" || m.from === "c";
    for (let i = 0; i < 5; i++) c.get("a").propose(bytes(`x${i}`));
    c.deliver();
    const meta = c.get("a").compact(7);
    const snaps: Message[] = [];
    c.drop = (m) => m.type === "snapshot" && snaps.push(m) > 0;
    // Heartbeat answers show c behind without progress for two heartbeat intervals: the leader probes
    // again, and finds the entries c needs compacted away.
    for (let i = 0; i < 12; i++) {
      c.tick("a");
      c.deliver();
    }
    expect(snaps).toEqual([{ type: "snapshot", from: "a", to: "c", term: 2, snapshot: meta }]);
    expect(c.get("a").status().progress?.c).toMatchObject({ state: "snapshot", pendingSnapshot: 7 });

    // The driver streamed the file; the follower's driver steps the final message in.
    c.get("c").step(snaps[0]!);
    const r = carryOut(c.get("c"));
    expect(r.snapshot).toEqual(meta);
    expect(r.committed).toEqual([]);
    expect(r.hardState?.commit).toBe(7);
    c.net.push(...r.sent);
    c.get("a").reportSnapshot("c", true);
    c.deliver();
    c.get("a").propose(bytes("after"));
    c.deliver();
    expect(c.get("a").status().progress?.c).toMatchObject({ state: "replicate", match: 8 });
    expect(c.get("c").status()).toMatchObject({ commit: 8, firstIndex: 8 });
    expect(c.dataOf("c")).toEqual(["after"]);
  });

  it("keeps trailing entries behind a snapshot: a follower within them catches up from the log", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    c.get("a").propose(bytes("x0"));
    c.deliver();
    // c holds the log through x0, then misses x1..x4.
    c.drop = (m) => m.to === "c" || m.from === "c";
    for (let i = 1; i < 5; i++) c.get("a").propose(bytes(`x${i}`));
    c.deliver();
    const meta = c.get("a").compact(7, 4);
    expect(meta.index).toBe(7);
    expect(c.get("a").status().firstIndex).toBe(4);
    expect(c.get("a").entryAt(3)).toBeUndefined();
    expect(c.get("a").entryAt(5)).toBeDefined();
    const sent: Message[] = [];
    c.drop = (m) => (m.type === "snapshot" ? sent.push(m) > 0 : false);
    for (let i = 0; i < 12; i++) {
      c.tick("a");
      c.deliver();
    }
    expect(sent).toEqual([]);
    expect(c.get("a").status().progress?.c).toMatchObject({ state: "replicate", match: 7 });
    expect(c.dataOf("c")).toEqual(["x0", "x1", "x2", "x3", "x4"]);
    // A later compaction keeps its own trailing entries and never grows the log back.
    expect(c.get("a").compact(7, 100)).toEqual(meta);
    expect(c.get("a").status().firstIndex).toBe(4);
  });

  it("a failed snapshot stream puts the follower back into probe and is retried", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    c.drop = (m) => m.to === "c" || m.from === "c";
    c.get("a").propose(bytes("x"));
    c.deliver();
    c.get("a").compact(3);
    const snaps: Message[] = [];
    c.drop = (m) => m.type === "snapshot" && snaps.push(m) > 0;
    // Heartbeat answers show c behind without progress for two heartbeat intervals: the leader probes
    // again, and finds the entries c needs compacted away.
    for (let i = 0; i < 12; i++) {
      c.tick("a");
      c.deliver();
    }
    expect(snaps).toHaveLength(1);
    c.get("a").reportSnapshot("c", false);
    expect(c.get("a").status().progress?.c).toMatchObject({ state: "probe" });
    c.tick("a");
    c.deliver();
    expect(snaps).toHaveLength(2);
  });

  it("a snapshot covering entries the follower already holds only advances its commit index", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    c.get("a").propose(bytes("x"));
    c.deliver();
    const b = c.get("b");
    const before = b.status();
    b.step({
      type: "snapshot",
      from: "a",
      to: "b",
      term: 2,
      snapshot: { index: 3, term: 2, conf: before.conf },
    });
    const r = b.ready();
    expect(r.snapshot).toBeUndefined();
    expect(b.status().lastIndex).toBe(3);
  });

  it("restarts from a snapshot plus the log after it", () => {
    const conf = { voters: ["a", "b", "c"], learners: [] };
    const core = new RaftCore(config("b"), {
      hardState: { term: 4, vote: "a", commit: 11 },
      snapshot: { index: 10, term: 3, conf },
      entries: [{ index: 11, term: 4, kind: "normal", data: bytes("z") }],
    });
    expect(core.status()).toMatchObject({
      term: 4,
      commit: 11,
      applied: 10,
      firstIndex: 11,
      lastIndex: 11,
      conf,
    });
    const r = core.ready();
    expect(r.committed.map((e) => e.index)).toEqual([11]);
  });

  it("a new server without state neither campaigns nor needs a bootstrap", () => {
    const core = new RaftCore(config("z"), EMPTY_RESTORE);
    for (let i = 0; i < 100; i++) core.tick();
    expect(core.status()).toMatchObject({ role: "follower", term: 0, conf: { voters: [], learners: [] } });
  });
});
