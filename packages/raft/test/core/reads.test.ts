import { describe, expect, it } from "vitest";
import type { RaftConfig } from "../../src/core/types.js";
import { bytes, TestCluster } from "./harness.js";

function cluster(over: Partial<RaftConfig> = {}): TestCluster {
  // Timeouts of 15 ticks; b and c leave their start-up stickiness without campaigning.
  const c = new TestCluster(["a", "b", "c"], { random: () => 0.5, ...over });
  c.tick("b", 10);
  c.tick("c", 10);
  c.elect("a");
  return c;
}

describe("ReadIndex", () => {
  it("answers on the leader only after a heartbeat round confirms leadership", () => {
    const c = cluster();
    c.get("a").propose(bytes("x"));
    c.deliver();
    c.get("a").readIndex("r1");
    c.flush();
    expect(c.reads.get("a")).toEqual([]);
    const hb = c.take((m) => m.type === "heartbeat");
    expect(hb).toHaveLength(2);
    c.net.push(hb[0]!);
    c.deliver();
    // Its own ack plus one follower's make a majority of three.
    expect(c.reads.get("a")).toEqual([{ ctx: "r1", index: 3 }]);
  });

  it("batches the reads made before ready() into one heartbeat round", () => {
    const c = cluster();
    for (let i = 0; i < 5; i++) c.get("a").readIndex(`b${i}`);
    expect(c.take((m) => m.type === "heartbeat")).toHaveLength(2);
    c.tick("a");
    c.deliver();
    expect(c.reads.get("a")!.map((r) => r.ctx)).toEqual(["b0", "b1", "b2", "b3", "b4"]);
  });

  it("is not answered by a leader cut off from the majority", () => {
    const c = cluster();
    c.drop = (m) => m.to === "a";
    c.get("a").readIndex("r1");
    c.deliver();
    expect(c.reads.get("a")).toEqual([]);
  });

  it("is forwarded by a follower to the leader, which answers with its commit index", () => {
    const c = cluster();
    c.get("a").propose(bytes("x"));
    c.deliver();
    c.get("b").readIndex("r2");
    c.deliver();
    expect(c.reads.get("b")).toEqual([{ ctx: "r2", index: 3 }]);
  });

  it("is rejected at once by a node that knows no leader", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.get("b").readIndex("r3");
    c.flush();
    expect(c.reads.get("b")).toEqual([{ ctx: "r3", error: "no-leader", leader: null }]);
  });

  it("waits until the new leader has committed an entry of its term", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.drop = (m) => m.type === "append-resp";
    c.elect("a");
    c.get("a").readIndex("r4");
    c.deliver();
    expect(c.reads.get("a")).toEqual([]);
    c.drop = () => false;
    c.tick("a");
    c.deliver();
    expect(c.reads.get("a")).toEqual([{ ctx: "r4", index: 2 }]);
  });
});

describe("lease reads", () => {
  const lease = { checkQuorum: true, leaseDriftTicks: 2 };

  it("are answered without a heartbeat round while the lease holds", () => {
    const c = cluster(lease);
    c.tick("a");
    c.deliver();
    expect(c.get("a").leaseValid()).toBe(true);
    c.get("a").readIndex("l1", { lease: true });
    c.flush();
    expect(c.reads.get("a")).toEqual([{ ctx: "l1", index: 2 }]);
    expect(c.take((m) => m.type === "heartbeat")).toEqual([]);
  });

  it("expire electionTicks - drift after the last quorum-acknowledged send", () => {
    const c = cluster(lease);
    c.tick("a");
    c.deliver();
    c.drop = (m) => m.to === "a";
    c.tick("a", 7);
    expect(c.get("a").leaseValid()).toBe(true);
    c.tick("a");
    expect(c.get("a").leaseValid()).toBe(false);
    c.get("a").readIndex("l2", { lease: true });
    c.flush();
    // Falls back to a heartbeat round, which cannot complete while a hears nothing.
    expect(c.reads.get("a")).toEqual([]);
  });

  it("survive a follower's restart: the restarted follower refuses votes while the lease may still hold", () => {
    const c = cluster(lease);
    c.tick("a");
    c.deliver();
    c.restart("b", { random: () => 0.5, ...lease });
    c.drop = (m) => m.from === "a" || m.to === "a";
    c.tick("c", 15);
    c.deliver();
    expect(c.get("a").leaseValid()).toBe(true);
    expect(c.get("c").status().role).not.toBe("leader");
    // Once the lease is over, the election goes through.
    c.tick("a", 8);
    expect(c.get("a").leaseValid()).toBe(false);
    for (let i = 0; i < 30 && c.get("c").status().role !== "leader"; i++) {
      c.tick("b");
      c.tick("c");
      c.deliver();
    }
    expect(c.get("c").status().role).toBe("leader");
  });

  it("are never used without CheckQuorum, nor during a leadership transfer", () => {
    const noCq = cluster({ leaseDriftTicks: 2 });
    noCq.tick("a");
    noCq.deliver();
    expect(noCq.get("a").leaseValid()).toBe(false);

    const c = cluster(lease);
    c.drop = (m) => m.to === "c";
    c.get("a").propose(bytes("x"));
    c.deliver();
    c.drop = () => false;
    expect(c.get("a").leaseValid()).toBe(true);
    c.get("a").transferLeadership("c");
    expect(c.get("a").leaseValid()).toBe(false);
  });
});
