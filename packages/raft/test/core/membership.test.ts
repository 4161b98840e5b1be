import { describe, expect, it } from "vitest";
import { decodeConfEntry } from "../../src/core/conf.js";
import { RaftCore } from "../../src/core/raft.js";
import { bytes, config, EMPTY_RESTORE, TestCluster } from "./harness.js";

function cluster(ids = ["a", "b", "c"]): TestCluster {
  const c = new TestCluster(ids);
  c.elect("a");
  return c;
}

function addNode(c: TestCluster, id: string): void {
  c.add(new RaftCore(config(id), EMPTY_RESTORE));
}

describe("membership changes", () => {
  it("adds a learner that receives the log but does not vote, then promotes it once caught up", () => {
    const c = cluster();
    for (let i = 0; i < 3; i++) c.get("a").propose(bytes(`x${i}`));
    c.deliver();
    addNode(c, "d");
    const res = c.get("a").proposeConfChange({ op: "add-learner", node: "d" });
    expect(res).toMatchObject({ index: 6 });
    c.deliver();
    c.tick("a");
    c.deliver();
    expect(c.get("d").status()).toMatchObject({
      conf: { voters: ["a", "b", "c"], learners: ["d"] },
      commit: 6,
    });
    expect(c.dataOf("d")).toEqual(["x0", "x1", "x2"]);
    // A learner never campaigns.
    c.tick("d", 50);
    expect(c.get("d").status().role).toBe("follower");
    const applied = c.applied
      .get("d")!
      .filter((e) => e.kind === "conf")
      .map((e) => decodeConfEntry(e.data).change);
    expect(applied).toEqual([null, { op: "add-learner", node: "d" }]);

    expect(c.get("a").proposeConfChange({ op: "promote", node: "d" })).toMatchObject({ index: 7 });
    c.deliver();
    expect(c.get("b").status().conf).toEqual({ voters: ["a", "b", "c", "d"], learners: [] });
  });

  it("refuses to promote a learner that has not caught up", () => {
    const c = cluster();
    addNode(c, "d");
    c.drop = (m) => m.to === "d";
    c.get("a").proposeConfChange({ op: "add-learner", node: "d" });
    c.deliver();
    expect(c.get("a").proposeConfChange({ op: "promote", node: "d" })).toMatchObject({
      error: "learner-behind",
    });
  });

  it("allows one uncommitted configuration change at a time", () => {
    const c = cluster();
    c.drop = (m) => m.type === "append-resp";
    expect(c.get("a").proposeConfChange({ op: "add-learner", node: "d" })).toMatchObject({ index: 3 });
    expect(c.get("a").proposeConfChange({ op: "add-learner", node: "e" })).toMatchObject({
      error: "conf-pending",
    });
    c.drop = () => false;
    c.tick("a");
    c.deliver();
    expect(c.get("a").proposeConfChange({ op: "add-learner", node: "e" })).toMatchObject({ index: 4 });
  });

  it("refuses a change before the leader committed an entry of its own term, and invalid changes", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.drop = (m) => m.type === "append-resp";
    c.elect("a");
    expect(c.get("a").proposeConfChange({ op: "remove", node: "b" })).toMatchObject({
      error: "term-not-committed",
    });
    c.drop = () => false;
    c.tick("a");
    c.deliver();
    expect(c.get("a").proposeConfChange({ op: "promote", node: "b" })).toMatchObject({
      error: "invalid-change",
    });
    expect(c.get("a").proposeConfChange({ op: "remove", node: "zz" })).toMatchObject({
      error: "unknown-node",
    });
  });

  it("removes a follower: the rest keep committing with the smaller majority", () => {
    const c = cluster();
    c.get("a").proposeConfChange({ op: "remove", node: "c" });
    c.deliver();
    c.drop = (m) => m.to === "c" || m.from === "c";
    c.get("a").propose(bytes("y"));
    c.deliver();
    expect(c.dataOf("b")).toEqual(["y"]);
    expect(c.get("a").status().progress).not.toHaveProperty("c");
  });

  it("removes the leader itself: it steps down once the change commits and hands over", () => {
    const c = cluster();
    c.get("a").proposeConfChange({ op: "remove", node: "a" });
    expect(c.get("a").status().role).toBe("leader");
    c.deliver();
    expect(c.get("a").status().role).toBe("follower");
    const leaders = ["b", "c"].filter((id) => c.get(id).status().role === "leader");
    expect(leaders).toHaveLength(1);
    expect(c.get(leaders[0]!).status().conf.voters).toEqual(["b", "c"]);
    // The removed server never campaigns again.
    c.tick("a", 50);
    expect(c.get("a").status().role).toBe("follower");
  });
});

describe("leadership transfer", () => {
  it("catches the target up, then TimeoutNow makes it campaign at once", () => {
    const c = cluster();
    c.drop = (m) => m.to === "c";
    c.get("a").propose(bytes("x"));
    c.deliver();
    c.drop = () => false;
    expect(c.get("a").transferLeadership("c")).toBeNull();
    expect(c.get("a").propose(bytes("refused"))).toMatchObject({ error: "transferring" });
    c.deliver();
    expect(c.get("c").status()).toMatchObject({ role: "leader", term: 3 });
    expect(c.get("a").status()).toMatchObject({ role: "follower", leader: "c" });
    expect(c.dataOf("c")).toEqual(["x"]);
  });

  it("aborts after an election timeout when the target does not take over", () => {
    const c = cluster();
    c.drop = (m) => m.to === "c";
    c.get("a").transferLeadership("c");
    c.deliver();
    expect(c.get("a").status().leadTransferee).toBe("c");
    c.tick("a", 10);
    expect(c.get("a").status()).toMatchObject({ role: "leader", leadTransferee: null });
    expect(c.get("a").propose(bytes("ok"))).toMatchObject({ index: 3 });
  });

  it("refuses targets that are not voters", () => {
    const c = cluster();
    expect(c.get("a").transferLeadership("zz")).toMatchObject({ error: "unknown-node" });
    expect(c.get("b").transferLeadership("c")).toMatchObject({ error: "not-leader", leader: "a" });
  });
});
