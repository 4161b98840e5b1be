import { describe, expect, it } from "vitest";
import { RaftCore } from "../../src/core/raft.js";
import type { Message } from "../../src/core/types.js";
import { bytes, carryOut, config, EMPTY_RESTORE, TestCluster } from "./harness.js";

const voters = { voters: ["a", "b", "c"], learners: [] };

function single(over = {}): RaftCore {
  const core = new RaftCore(config("a", over), EMPTY_RESTORE, voters);
  carryOut(core);
  return core;
}

function vote(
  from: string,
  term: number,
  lastIndex: number,
  lastTerm: number,
  type: "vote" | "pre-vote" = "vote",
): Message {
  return { type, from, to: "a", term, lastIndex, lastTerm, transfer: false };
}

function sent(core: RaftCore): Message[] {
  return carryOut(core).sent;
}

describe("terms (Figure 2: all servers)", () => {
  it("a higher term in any message makes the node a follower of that term and clears its vote", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.elect("a");
    expect(c.get("a").status()).toMatchObject({ role: "leader", term: 2 });
    c.get("a").step({ type: "heartbeat-resp", from: "b", to: "a", term: 5, sent: 0, read: 0 });
    expect(c.get("a").status()).toMatchObject({ role: "follower", term: 5, vote: null, leader: null });
  });

  it("answers a stale leader's append with its own term so the stale leader steps down (with CheckQuorum)", () => {
    const core = single({ checkQuorum: true });
    core.step({ type: "heartbeat", from: "b", to: "a", term: 4, commit: 0, sent: 0, read: 0 });
    sent(core);
    core.step({
      type: "append",
      from: "c",
      to: "a",
      term: 3,
      prevIndex: 1,
      prevTerm: 1,
      entries: [],
      commit: 1,
      sent: 0,
    });
    const out = sent(core);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ type: "append-resp", to: "c", term: 4 });
  });

  it("ignores stale-term vote requests", () => {
    const core = single();
    core.step({ type: "heartbeat", from: "b", to: "a", term: 4, commit: 0, sent: 0, read: 0 });
    sent(core);
    core.step(vote("c", 3, 10, 3));
    expect(sent(core)).toEqual([]);
    expect(core.status().vote).toBeNull();
  });
});

describe("RequestVote (Figure 2: receiver implementation)", () => {
  it("grants at most one vote per term and repeats a grant to the same candidate", () => {
    const core = single();
    core.step(vote("b", 2, 1, 1));
    const r = carryOut(core);
    // The vote is in the write of the Ready whose grant leaves only once that write is durable.
    expect(r.hardState).toMatchObject({ term: 2, vote: "b" });
    expect(r.messages).toEqual([]);
    expect(r.persistedMessages).toEqual([{ type: "vote-resp", from: "a", to: "b", term: 2, reject: false }]);
    core.step(vote("c", 2, 1, 1));
    expect(sent(core)).toEqual([{ type: "vote-resp", from: "a", to: "c", term: 2, reject: true }]);
    core.step(vote("b", 2, 1, 1));
    expect(sent(core)[0]).toMatchObject({ to: "b", reject: false });
  });

  it("refuses a candidate whose log is less up to date (last term first, then length)", () => {
    const core = single();
    // Log: [1@1 conf, 2@2, 3@2]
    core.step({
      type: "append",
      from: "b",
      to: "a",
      term: 2,
      prevIndex: 1,
      prevTerm: 1,
      entries: [
        { term: 2, index: 2, kind: "noop", data: new Uint8Array() },
        { term: 2, index: 3, kind: "normal", data: new Uint8Array([1]) },
      ],
      commit: 1,
      sent: 0,
    });
    sent(core);
    core.step(vote("c", 3, 9, 1)); // longer but older last term
    expect(sent(core)[0]).toMatchObject({ reject: true, term: 3 });
    core.step(vote("c", 4, 2, 2)); // same last term, shorter
    expect(sent(core)[0]).toMatchObject({ reject: true, term: 4 });
    core.step(vote("c", 5, 3, 2)); // as up to date
    expect(sent(core)[0]).toMatchObject({ reject: false, term: 5 });
    core.step(vote("b", 6, 1, 3)); // newer last term wins even if shorter
    expect(sent(core)[0]).toMatchObject({ reject: false, term: 6 });
  });
});

describe("elections (Figure 2: candidates)", () => {
  it("campaigns after a randomized timeout in [electionTicks, 2*electionTicks)", () => {
    for (const [draw, ticks] of [
      [0, 10],
      [0.55, 15],
      [0.999, 19],
    ] as const) {
      const core = new RaftCore(config("a", { random: () => draw }), EMPTY_RESTORE, voters);
      carryOut(core);
      let n = 0;
      while (core.status().role === "follower") {
        core.tick();
        n++;
      }
      expect(n).toBe(ticks);
      expect(core.status()).toMatchObject({ role: "candidate", term: 2, vote: "a" });
    }
  });

  it("becomes leader with a majority, and steps down when a majority refuses", () => {
    const c = new TestCluster(["a", "b", "c"]);
    c.tick("a", 10);
    c.deliver();
    expect(c.get("a").status().role).toBe("leader");

    const core = single();
    for (let i = 0; i < 10; i++) core.tick();
    sent(core);
    core.step({ type: "vote-resp", from: "b", to: "a", term: 2, reject: true });
    expect(core.status().role).toBe("candidate");
    core.step({ type: "vote-resp", from: "c", to: "a", term: 2, reject: true });
    expect(core.status()).toMatchObject({ role: "follower", term: 2 });
  });

  it("a rejected candidate's higher term does not restart the election timer (only leaders and granted votes do)", () => {
    const core = single();
    for (let i = 0; i < 6; i++) core.tick();
    core.step(vote("b", 7, 0, 0)); // stale log: rejected, but the term moves on
    expect(sent(core)[0]).toMatchObject({ reject: true, term: 7 });
    for (let i = 0; i < 4; i++) core.tick();
    expect(core.status()).toMatchObject({ role: "candidate", term: 8 });
  });

  it("a single voter elects itself and commits its noop once its own write is durable", () => {
    const core = new RaftCore(config("a"), EMPTY_RESTORE, { voters: ["a"], learners: [] });
    for (let i = 0; i < 10; i++) core.tick();
    expect(core.status()).toMatchObject({ role: "leader", commit: 1 });
    const write = carryOut(core);
    expect(write.entries.map((e) => e.index)).toEqual([1, 2]);
    expect(write.committed).toEqual([]);
    expect(core.status().commit).toBe(2);
    expect(carryOut(core).committed.map((e) => e.index)).toEqual([1, 2]);
  });
});

describe("PreVote", () => {
  it("a pre-candidate does not bump its term, and becomes candidate only after a pre-vote majority", () => {
    const c = new TestCluster(["a", "b", "c"], { preVote: true });
    c.tick("a", 10);
    expect(c.get("a").status()).toMatchObject({ role: "pre-candidate", term: 1 });
    const pre = c.take((m) => m.type === "pre-vote");
    expect(pre.map((m) => m.term)).toEqual([2, 2]);
    for (const m of pre) c.get(m.to).step(m);
    // Granting a pre-vote changes nothing on the voter.
    expect(c.get("b").status()).toMatchObject({ term: 1, vote: null });
    c.deliver();
    expect(c.get("a").status()).toMatchObject({ role: "leader", term: 2 });
  });

  it("a partitioned server rejoining does not disrupt the leader with an inflated term", () => {
    const c = new TestCluster(["a", "b", "c"], { preVote: true });
    c.elect("a");
    c.drop = (m) => m.from === "c" || m.to === "c";
    c.get("a").propose(bytes("while c was away"));
    for (let i = 0; i < 50; i++) {
      c.tick("c");
      c.deliver();
    }
    expect(c.get("c").status()).toMatchObject({ term: 2, role: "pre-candidate" });
    c.drop = () => false;
    c.tick("c", 20);
    c.deliver();
    c.tick("a");
    c.deliver();
    expect(c.get("a").status()).toMatchObject({ role: "leader", term: 2 });
    expect(c.get("c").status()).toMatchObject({ role: "follower", leader: "a", term: 2 });
  });
});

describe("CheckQuorum", () => {
  it("a leader that hears from no majority within an election timeout steps down", () => {
    // Timeouts of 15 ticks: b and c leave their start-up stickiness (10 ticks) without campaigning.
    const c = new TestCluster(["a", "b", "c"], { checkQuorum: true, random: () => 0.5 });
    c.tick("b", 10);
    c.tick("c", 10);
    c.elect("a");
    c.drop = (m) => m.to === "a" && m.from !== "b";
    for (let i = 0; i < 25; i++) {
      c.tick("a");
      c.deliver();
    }
    expect(c.get("a").status().role).toBe("leader"); // b still answers: a quorum
    c.drop = (m) => m.to === "a";
    for (let i = 0; i < 20; i++) {
      c.tick("a");
      c.deliver();
    }
    expect(c.get("a").status()).toMatchObject({ role: "follower", term: 2, leader: null });
  });

  it("followers with a live leader ignore vote requests (leader stickiness), but not a transfer's", () => {
    // Timeouts of 15 ticks: b and c leave their start-up stickiness (10 ticks) without campaigning.
    const c = new TestCluster(["a", "b", "c"], { checkQuorum: true, random: () => 0.5 });
    c.tick("b", 10);
    c.tick("c", 10);
    c.elect("a");
    const b = c.get("b");
    b.step({ type: "vote", from: "c", to: "b", term: 9, lastIndex: 99, lastTerm: 9, transfer: false });
    expect(b.status()).toMatchObject({ term: 2, leader: "a" });
    expect(c.take((m) => m.from === "b")).toEqual([]);
    b.step({ type: "vote", from: "c", to: "b", term: 9, lastIndex: 99, lastTerm: 9, transfer: true });
    expect(b.status()).toMatchObject({ term: 9, vote: "c" });
  });

  it("followers told that the leader is gone campaign within a few ticks and grant each other's votes", () => {
    const c = new TestCluster(["a", "b", "c"], { checkQuorum: true, preVote: true, random: () => 0.5 });
    c.tick("b", 10);
    c.tick("c", 10);
    c.elect("a");
    c.drop = (m) => m.to === "a" || m.from === "a";
    // Without the news, b would wait out its election timeout (15 ticks) and c's stickiness would refuse it.
    expect(c.get("b").leaderGone("a")).toBe(true);
    expect(c.get("c").leaderGone("a")).toBe(true);
    expect(c.get("b").leaderGone("c")).toBe(false); // not its leader: ignored
    for (let i = 0; i < 3 && c.get("b").status().role !== "leader"; i++) {
      c.tick("b");
      c.deliver();
    }
    expect(c.get("b").status()).toMatchObject({ role: "leader", term: 3 });
  });

  it("stalled ticks advance no election timer: a follower that could not run does not campaign", () => {
    const c = new TestCluster(["a", "b", "c"], { checkQuorum: true, preVote: true, random: () => 0.5 });
    c.tick("b", 10);
    c.tick("c", 10);
    c.elect("a");
    const b = c.get("b");
    for (let i = 0; i < 100; i++) b.tick(true);
    expect(c.take((m) => m.from === "b")).toEqual([]);
    expect(b.status()).toMatchObject({ role: "follower", leader: "a", term: 2 });
    const leader = c.get("a");
    for (let i = 0; i < 100; i++) leader.tick(true); // nor the leader's quorum check
    expect(leader.status().role).toBe("leader");
  });

  it("a freshly (re)started server ignores votes for an election timeout: it may have acked a lease just before", () => {
    const core = single({ checkQuorum: true });
    core.step(vote("b", 2, 1, 1));
    expect(core.status().term).toBe(1);
    for (let i = 0; i < 10; i++) core.tick(); // it campaigns itself meanwhile: now out of the lease window
    sent(core);
    core.step(vote("b", 5, 1, 1));
    expect(core.status()).toMatchObject({ term: 5, vote: "b" });
  });
});
